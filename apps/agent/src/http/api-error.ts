import { BudgetExceededError } from '@sandscope/engine/models';
import { StoreError } from '@sandscope/store';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { HTTPException } from 'hono/http-exception';
import { LIMIT_ERROR_REMEDIES, LimiterUnavailableError } from '../limits/limiter.ts';
import { ServiceError } from '../service/service-error.ts';

/** Every error code the agent's API answers with (docs/API.md): a closed union, a status and a remedy each (STYLE 8). */
export type ApiErrorCode =
  | 'invalid_request'
  | 'question_too_long'
  | 'unauthorized'
  | 'forbidden_session'
  | 'not_found'
  | 'not_awaiting_approval'
  | 'payload_too_large'
  | 'rate_limited'
  | 'daily_tokens_exhausted'
  | 'limiter_unavailable'
  | 'store_unavailable'
  | 'budget_exceeded'
  | 'internal';

export const API_ERRORS: Readonly<Record<ApiErrorCode, { readonly status: ContentfulStatusCode; readonly remedy: string }>> = {
  invalid_request: { status: 400, remedy: 'Fix the field named above; the request shapes are in docs/API.md.' },
  question_too_long: { status: 400, remedy: 'Ask one specific, shorter question.' },
  unauthorized: { status: 401, remedy: 'Send Authorization: Bearer <AGENT_TOKEN>, the value the agent was started with.' },
  forbidden_session: { status: 403, remedy: 'Approve from the session (the sandscope_session cookie) that asked the question.' },
  not_found: { status: 404, remedy: 'Check the id or path; GET /v1/runs lists the runs there are.' },
  not_awaiting_approval: {
    status: 409,
    remedy: 'Only a completed run whose terminal is await_approval can be approved, once; ask the question again for a fresh result.',
  },
  payload_too_large: { status: 413, remedy: 'Send a smaller body: a question is a few hundred characters of JSON.' },
  rate_limited: { status: 429, remedy: LIMIT_ERROR_REMEDIES.rate_limited },
  daily_tokens_exhausted: { status: 429, remedy: LIMIT_ERROR_REMEDIES.daily_tokens_exhausted },
  limiter_unavailable: { status: 503, remedy: LIMIT_ERROR_REMEDIES.limiter_unavailable },
  store_unavailable: {
    status: 503,
    remedy:
      'The agent cannot reach its database, so runs are refused until it is back (fail closed); a run it cut short reads back as interrupted. Try again shortly; operators: check the Postgres server in DATABASE_URL and GET /healthz.',
  },
  budget_exceeded: { status: 402, remedy: 'Ask a narrower question, or raise RUN_BUDGET_USD (or RUN_TOKEN_BUDGET, when the message names it) for this deployment.' },
  internal: { status: 500, remedy: 'An internal error in the agent; it is logged on the server. Try again, and report it if it repeats.' },
};

/** The one error body (docs/API.md): `{ error: { code, message } }`. */
export interface ApiErrorBody {
  readonly error: { readonly code: ApiErrorCode; readonly message: string };
}

/**
 * The longest `detail` an error carries; longer is cut with an ellipsis. A
 * detail may quote the request back (an id, a field name), and no request
 * should be able to make the error bigger than the remedy needs (issue 12, defect 8).
 */
export const MAX_ERROR_DETAIL_CHARS = 500;

/** An expected refusal raised inside a handler; `detail` says what was wrong, the code's remedy is appended. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly detail?: string;
  constructor(
    readonly code: ApiErrorCode,
    detail?: string,
  ) {
    const capped = detail !== undefined && detail.length > MAX_ERROR_DETAIL_CHARS ? `${Array.from(detail).slice(0, MAX_ERROR_DETAIL_CHARS - 1).join('')}…` : detail;
    super(capped ? `${capped} ${API_ERRORS[code].remedy}` : API_ERRORS[code].remedy);
    if (capped !== undefined) this.detail = capped;
  }

  get status(): ContentfulStatusCode {
    return API_ERRORS[this.code].status;
  }

  body(): ApiErrorBody {
    return { error: { code: this.code, message: this.message } };
  }
}

/**
 * Converts any error to the API's closed set, once, at the boundary (STYLE 7).
 * Known refusals keep their message; anything else is `internal` with the
 * remedy only — the original message and stack go to the server log, never to
 * the client. `isBug` says which of the two it was.
 */
export function toApiError(error: unknown): { readonly apiError: ApiError; readonly isBug: boolean } {
  if (error instanceof ApiError) return { apiError: error, isBug: false };
  if (error instanceof ServiceError) return { apiError: new ApiError(error.code, error.detail), isBug: false };
  if (error instanceof LimiterUnavailableError) return { apiError: new ApiError('limiter_unavailable'), isBug: false };
  // Issue 12, defect 4: an outage is unavailability, said with its own code, never `internal`.
  if (error instanceof StoreError && error.code === 'database_unreachable') return { apiError: new ApiError('store_unavailable'), isBug: false };
  if (error instanceof BudgetExceededError) return { apiError: new ApiError('budget_exceeded', error.message), isBug: false };
  if (error instanceof HTTPException) {
    const byStatus: Partial<Record<number, ApiErrorCode>> = { 400: 'invalid_request', 401: 'unauthorized', 404: 'not_found', 413: 'payload_too_large' };
    const code = byStatus[error.status];
    if (code) return { apiError: new ApiError(code), isBug: false };
  }
  return { apiError: new ApiError('internal'), isBug: true };
}
