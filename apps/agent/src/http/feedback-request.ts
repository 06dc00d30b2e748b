import { FEEDBACK_LABELS, type FeedbackLabel } from '@sandscope/store';
import { z } from 'zod';
import { ApiError } from './api-error.ts';
import { requestText } from './request-text.ts';
import { describeIssue } from './run-request.ts';

/** `POST /v1/runs/:id/feedback` body (docs/API.md). Strict, like a run request: an unknown field is named back. */
export const FeedbackRequestSchema = z.strictObject({
  label: z.enum(FEEDBACK_LABELS as [FeedbackLabel, ...FeedbackLabel[]], { error: `must be one of ${FEEDBACK_LABELS.join(', ')}` }),
  note: requestText().nullable().optional(),
  /** The passage that answers (S-286): its id, or a quotation of it. */
  evidence: requestText().nullable().optional(),
});

export interface FeedbackRequest {
  readonly label: FeedbackLabel;
  readonly note: string | null;
  readonly evidence: string | null;
}

/**
 * Validates a mark's shape. The note's length is not checked here: the store
 * owns that rule (characters after trimming, at most MAX_FEEDBACK_NOTE_CHARS),
 * so the API and the CLI refuse exactly the same notes with the same words; the
 * evidence is matched to a passage by the service (mark-evidence.ts), as by the CLI.
 */
export function parseFeedbackRequest(body: unknown): FeedbackRequest {
  const parsed = FeedbackRequestSchema.safeParse(body);
  if (!parsed.success) throw new ApiError('invalid_request', describeIssue(parsed.error, 'body'));
  return { label: parsed.data.label, note: parsed.data.note ?? null, evidence: parsed.data.evidence ?? null };
}
