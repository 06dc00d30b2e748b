import { type RunRequest, WORKLOADS, type Workload } from '@sandscope/api';

/** The console's fields, from a form post or the enhanced console's JSON, validated before the agent sees them. */
export type ParsedRunRequest = { ok: true; request: RunRequest } | { ok: false; message: string };

/** Generous: the agent enforces its own MAX_QUESTION_CHARS and says so; this only stops absurd bodies early. */
const MAX_QUESTION_CHARS_HERE = 8_000;
const MAX_PROVIDERS = 16;

export function isWorkload(value: unknown): value is Workload {
  return typeof value === 'string' && (WORKLOADS as readonly string[]).includes(value);
}

export function parseRunRequest(input: { question?: unknown; workload?: unknown; failProviders?: unknown }): ParsedRunRequest {
  const question = typeof input.question === 'string' ? input.question.trim() : '';
  if (!question) return { ok: false, message: 'question: type a question first.' };
  if (question.length > MAX_QUESTION_CHARS_HERE) return { ok: false, message: 'question: too long.' };
  const workload = input.workload === undefined || input.workload === '' ? 'triage' : input.workload;
  if (!isWorkload(workload)) return { ok: false, message: 'workload: must be triage, change or postmortem.' };
  const raw = input.failProviders === undefined ? [] : Array.isArray(input.failProviders) ? input.failProviders : [input.failProviders];
  const failProviders = [...new Set(raw.filter((p): p is string => typeof p === 'string' && /^[a-z0-9_-]{1,40}$/i.test(p)))].slice(0, MAX_PROVIDERS);
  return { ok: true, request: { question, workload, ...(failProviders.length ? { failProviders } : {}) } };
}
