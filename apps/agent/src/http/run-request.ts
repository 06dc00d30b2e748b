import type { Workload } from '@sandscope/engine';
import { parseWorkload, WORKLOAD_IDS } from '@sandscope/engine/orchestrator';
import { z } from 'zod';
import { charCount } from '../char-count.ts';
import { INJECTABLE_PROVIDERS, unconfiguredToFail } from '../run-agent.ts';
import { ApiError } from './api-error.ts';
import { requestText } from './request-text.ts';

/** `POST /v1/runs` body (docs/API.md). Strict: an unknown field is named back rather than silently ignored. */
export const RunRequestSchema = z.strictObject({
  question: requestText(),
  // Read as the CLI reads `-w` (S-140): "Change" is the change workload here too.
  workload: z
    .string({ error: `must be one of ${WORKLOAD_IDS.join(', ')}` })
    .transform((value, ctx) => {
      const parsed = parseWorkload(value);
      if (parsed.ok) return parsed.workload;
      ctx.issues.push({ code: 'custom', input: value, message: `must be one of ${WORKLOAD_IDS.join(', ')}` });
      return z.NEVER;
    })
    .optional(),
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

/** The highest page asked for: far past any list, and its offset (page × pageSize) still a safe integer. */
const MAX_PAGE = 1_000_000_000;

/**
 * A query number written in plain decimal digits, then held to [min, max]. S-212: read with `Number`, `page=0x10` was
 * page 16, and `1e1`, ` 2`, `+3` and `1.0` were pages too; a link with a typo must not quietly read another page.
 */
function queryWholeNumber(min: number, max: number, fallback: number) {
  return (
    z
      .string({ error: 'must be a whole number written in digits, such as 2' })
      .regex(/^\d+$/, 'must be a whole number written in digits, such as 2')
      .transform(Number)
      // Digits past a double's range read as Infinity, which z.number refuses: also too big.
      .pipe(
        z
          .number({ error: `must be at most ${max}` })
          .min(min, `must be at least ${min}`)
          .max(max, `must be at most ${max}`),
      )
      .default(fallback)
  );
}

/** `GET /v1/runs` query. */
export const RunPageSchema = z.object({
  page: queryWholeNumber(1, MAX_PAGE, 1),
  pageSize: queryWholeNumber(1, 100, 20),
});

/** Unknown fields named in a message before the rest are only counted (issue 12, defect 8). */
export const MAX_NAMED_FIELDS = 5;
/** A field name longer than this is cut, with its length said (issue 12, defect 8). */
export const MAX_FIELD_NAME_CHARS = 40;

/** The first problem, naming the field: "failProviders.0 must name a provider: …". */
export function describeIssue(error: z.ZodError, root: string): string {
  const issue = error.issues[0];
  if (!issue) return `${root} is invalid.`;
  if (issue.code === 'unrecognized_keys') return `${root} has unknown field(s): ${nameFields(issue.keys)}.`;
  const path = issue.path.length > 0 ? issue.path.map((p) => fieldName(String(p))).join('.') : root;
  return `${path} ${issue.message}.`;
}

/**
 * Issue 12, defect 8: the message used to echo every unknown key, so a body of
 * 200,000 keys (or one key of a megabyte) came back as a multi-MB error. Now a
 * few are named, the rest counted, and each name is cut to a readable length.
 */
function nameFields(keys: readonly string[]): string {
  const named = keys.slice(0, MAX_NAMED_FIELDS).map(fieldName).join(', ');
  return keys.length > MAX_NAMED_FIELDS ? `${named} and ${keys.length - MAX_NAMED_FIELDS} more` : named;
}

function fieldName(key: string): string {
  const chars = [...key];
  return chars.length > MAX_FIELD_NAME_CHARS ? `${chars.slice(0, MAX_FIELD_NAME_CHARS).join('')}… (${chars.length} characters)` : key;
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
  const length = charCount(question);
  if (length > maxQuestionChars) {
    throw new ApiError('question_too_long', `The question is ${length} characters; the limit is ${maxQuestionChars} (MAX_QUESTION_CHARS).`);
  }
  return { question, workload: parsed.data.workload ?? 'triage', failProviders: [...new Set(parsed.data.failProviders ?? [])] };
}

/**
 * A run request's failProviders checked against the providers this deployment configured (S-268): one it never calls
 * is `invalid_request` naming the ones it could fail, before the run is admitted — not a run served from the cache.
 */
export function checkConfiguredFailProviders(request: RunRequest, configured: readonly string[]): RunRequest {
  const unconfigured = unconfiguredToFail(request.failProviders, configured, 'failProviders');
  if (unconfigured) throw new ApiError('invalid_request', unconfigured);
  return request;
}
