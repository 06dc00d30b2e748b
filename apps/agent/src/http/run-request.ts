import type { Workload } from '@sandscope/engine';
import { WORKLOAD_IDS } from '@sandscope/engine/orchestrator/index';
import { z } from 'zod';
import { INJECTABLE_PROVIDERS } from '../run-agent.ts';
import { ApiError } from './api-error.ts';
import { requestText } from './request-text.ts';

/** `POST /v1/runs` body (docs/API.md). Strict: an unknown field is named back rather than silently ignored. */
export const RunRequestSchema = z.strictObject({
  question: requestText(),
  workload: z.enum(WORKLOAD_IDS as [Workload, ...Workload[]], { error: `must be one of ${WORKLOAD_IDS.join(', ')}` }).optional(),
  failProviders: z
    .array(z.enum(INJECTABLE_PROVIDERS as [string, ...string[]], { error: `must name a provider: ${INJECTABLE_PROVIDERS.join(', ')}` }))
    .max(INJECTABLE_PROVIDERS.length)
    .optional(),
});

export interface RunRequest {
  readonly question: string;
  readonly workload: Workload;
  readonly failProviders: readonly string[];
}

/** `GET /v1/runs` query. */
export const RunPageSchema = z.object({
  page: z.coerce.number({ error: 'must be a whole number' }).int('must be a whole number').min(1, 'must be at least 1').default(1),
  pageSize: z.coerce.number({ error: 'must be a whole number' }).int('must be a whole number').min(1, 'must be at least 1').max(100, 'must be at most 100').default(20),
});

/** The first problem, naming the field: "failProviders.0 must name a provider: …". */
export function describeIssue(error: z.ZodError, root: string): string {
  const issue = error.issues[0];
  if (!issue) return `${root} is invalid.`;
  if (issue.code === 'unrecognized_keys') return `${root} has unknown field(s): ${issue.keys.join(', ')}.`;
  const path = issue.path.length > 0 ? issue.path.join('.') : root;
  return `${path} ${issue.message}.`;
}

/**
 * Validates a run request. The question is trimmed; an empty one is
 * `invalid_request`, one longer than `maxQuestionChars` characters (code
 * points) is `question_too_long`.
 */
export function parseRunRequest(body: unknown, maxQuestionChars: number): RunRequest {
  const parsed = RunRequestSchema.safeParse(body);
  if (!parsed.success) throw new ApiError('invalid_request', describeIssue(parsed.error, 'body'));
  const question = parsed.data.question.trim();
  if (question.length === 0) throw new ApiError('invalid_request', 'question must not be empty.');
  const length = [...question].length;
  if (length > maxQuestionChars) {
    throw new ApiError('question_too_long', `The question is ${length} characters; the limit is ${maxQuestionChars} (MAX_QUESTION_CHARS).`);
  }
  return { question, workload: parsed.data.workload ?? 'triage', failProviders: [...new Set(parsed.data.failProviders ?? [])] };
}
