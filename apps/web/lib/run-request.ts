import { parseWorkload, type RunRequest, WORKLOADS } from '@sandscope/api';
import type { ProblemCode } from './problems';

/** The console's fields, from a form post or the enhanced console's JSON, validated before the agent sees them. */
export type ParsedRunRequest =
  | { ok: true; request: RunRequest }
  | { ok: false; code: Extract<ProblemCode, 'invalid_request' | 'question_too_long'>; message: string };

/** Generous: the agent enforces its own MAX_QUESTION_CHARS and says so; this only stops absurd bodies early. */
const MAX_QUESTION_CHARS_HERE = 8_000;
const MAX_PROVIDERS = 16;

/**
 * The largest body the console's door reads (64 KiB): room for a question of MAX_QUESTION_CHARS_HERE characters,
 * percent-encoded, and the provider boxes. A 2 MB post was read whole and answered "Type a question, pick a
 * workload"; over this it is `payload_too_large`, naming the limit, and the agent is not called.
 */
export const MAX_RUN_BODY_BYTES = 64 * 1024;

/**
 * The most of a refused question carried back to the console in its redirect (the page reads no more): a question
 * over the agent's 1,000 characters came back cut to them, or — refused here — as an empty box.
 */
export const KEPT_QUESTION_CHARS = 2_000;

export function parseRunRequest(input: { question?: unknown; workload?: unknown; failProviders?: unknown }): ParsedRunRequest {
  const question = typeof input.question === 'string' ? input.question.trim() : '';
  if (!question) return { ok: false, code: 'invalid_request', message: 'question: type a question first.' };
  // Characters (code points), as the agent counts its MAX_QUESTION_CHARS (S-288): an emoji is one, not two.
  const length = [...question].length;
  if (length > MAX_QUESTION_CHARS_HERE) {
    return { ok: false, code: 'question_too_long', message: `question: ${length} characters; the console sends at most ${MAX_QUESTION_CHARS_HERE}.` };
  }
  const workload = input.workload === undefined || typeof input.workload === 'string' ? parseWorkload(input.workload) : null;
  if (!workload?.ok) return { ok: false, code: 'invalid_request', message: `workload: must be one of ${WORKLOADS.join(', ')}.` };
  const raw = input.failProviders === undefined ? [] : Array.isArray(input.failProviders) ? input.failProviders : [input.failProviders];
  const failProviders = [...new Set(raw.filter((p): p is string => typeof p === 'string' && /^[a-z0-9_-]{1,40}$/i.test(p)))].slice(0, MAX_PROVIDERS);
  return { ok: true, request: { question, workload: workload.workload, ...(failProviders.length ? { failProviders } : {}) } };
}

/** What the console says above a refused question's problem: a body over the door's own limit names that limit. */
export function consoleRefusal(code: ProblemCode): string {
  if (code === 'payload_too_large') {
    return `Your question was not answered: the form sent more than the console accepts (${MAX_RUN_BODY_BYTES / 1024} KB), so it was not read.`;
  }
  return 'Your question was not answered.';
}
