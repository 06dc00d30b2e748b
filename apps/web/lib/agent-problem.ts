import { API_ERRORS, type ApiErrorCode, apiErrorBodySchema, remedyOf } from '@sandscope/api/errors';
import type { Problem, ProblemCode } from './problems';

/*
 * An agent's refusal, read once, on the server (STYLE 7): the BFF's lib/agent.ts
 * turns every non-2xx answer into a Problem here, and app/api/runs/route.ts every
 * `event: error` of a run's stream, its message ending with the
 * website's remedy rather than the API's. Apart from problems.ts because
 * it parses with the API contract's error schema, whose module holds the API's
 * remedies — which may name the token variable and must not reach a client
 * bundle (T-12); problems.ts is shared with client components.
 */

function retryAfterSeconds(res: Response): number | undefined {
  const raw = res.headers.get('retry-after');
  if (!raw) return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds)) return seconds;
  const date = Date.parse(raw);
  return Number.isFinite(date) ? Math.max(0, Math.round((date - Date.now()) / 1000)) : undefined;
}

/** The most of the agent's message a page shows (and a refusal's cookie carries, lib/refusal-words.ts). */
export const MAX_MESSAGE_CHARS = 500;

/**
 * The agent's message as a page says it: its detail, then the website's remedy for the code (`remedyOf(code, 'web')`)
 * in place of the API's. The agent ends every message with the API's remedy, and the page showed it whole: a question
 * refused in the plain form ended "Fix what the message names; the request shapes are in docs/API.md." — advice for
 * an API client, read by a person on a page (found by a black-box audit of the website without JavaScript). The detail
 * is cut, never the remedy. A message that does not end with the code's API remedy (an agent of another version) is
 * kept as it came.
 */
export function messageForPage(code: ApiErrorCode, message: string): string {
  const apiRemedy = API_ERRORS[code].remedy;
  const detail = message === apiRemedy ? '' : message.endsWith(` ${apiRemedy}`) ? message.slice(0, -apiRemedy.length - 1) : null;
  if (detail === null) return message.slice(0, MAX_MESSAGE_CHARS);
  const remedy = remedyOf(code, 'web');
  if (!detail) return remedy;
  const room = MAX_MESSAGE_CHARS - remedy.length - 1;
  return `${detail.length > room ? `${detail.slice(0, room - 1)}…` : detail} ${remedy}`;
}

/**
 * A run's `event: error` — `{ error: { code, message } }`, the run failing after its stream opened — as a Problem,
 * once, for both of the console's ways (app/api/runs/route.ts): the no-JavaScript form's redirect, and the enhanced
 * console, whose stream the BFF passes on with this Problem in the event's place. Its message ends with the website's
 * remedy (messageForPage): the enhanced console got the agent's stream unchanged and showed the message whole, so a
 * run cut short by a database outage ended "… check the Postgres server in DATABASE_URL and GET /healthz." — the
 * API's remedy, which S-202 had taken off every other refusal a page shows. A body the contract does not know is said
 * as such, as problemFromResponse says one.
 */
export function problemFromStreamError(data: unknown): Problem {
  const parsed = apiErrorBodySchema.safeParse(data);
  if (!parsed.success) return { code: 'bad_gateway', status: 502, detail: 'The run failed, and the agent’s error event does not match the contract.' };
  const { code } = parsed.data.error;
  const message = messageForPage(code, parsed.data.error.message);
  // The status is the one the error vocabulary gives the code (API_ERRORS: 503 for store_unavailable, 409 for
  // run_interrupted), the status the same refusal has before a stream opens. It was 500 for every code, and the
  // console labelled each run that failed mid-stream "HTTP 500" whatever the agent said had happened (S-207).
  return { code, status: API_ERRORS[code].status, ...(message ? { message } : {}) };
}

/** Convert a non-2xx agent response into a Problem, once (STYLE 7). */
export async function problemFromResponse(res: Response): Promise<Problem> {
  let code: ProblemCode = res.status === 401 ? 'unauthorized' : res.status === 404 ? 'not_found' : res.status >= 500 ? 'internal' : 'bad_gateway';
  let message: string | undefined;
  let detail: string | undefined;
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    detail = `The agent answered HTTP ${res.status} without a JSON error body.`;
  }
  // The shared contract's error body (@sandscope/api/errors); a body that is not one keeps the status's code.
  const parsed = apiErrorBodySchema.safeParse(body);
  if (parsed.success) {
    code = parsed.data.error.code;
    message = messageForPage(parsed.data.error.code, parsed.data.error.message);
  } else if (body !== undefined) {
    detail = `The agent answered HTTP ${res.status} with an error body the contract does not know.`;
  }
  const retry = retryAfterSeconds(res);
  return {
    code,
    status: res.status,
    ...(message ? { message } : {}),
    ...(detail ? { detail } : {}),
    ...(retry !== undefined ? { retryAfterSeconds: retry } : {}),
  };
}
