import { API_ERRORS, type ApiErrorBody, type ApiErrorCode, isApiErrorCode } from '@sandscope/api/errors';
import { errorCodeOf } from '@sandscope/engine';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { HTTPException } from 'hono/http-exception';

/** The codes, statuses and remedies are the shared contract's (@sandscope/api/errors): the website parses the same ones. */
export { API_ERRORS, type ApiErrorBody, type ApiErrorCode } from '@sandscope/api/errors';

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
    const capped =
      detail !== undefined && detail.length > MAX_ERROR_DETAIL_CHARS
        ? `${Array.from(detail)
            .slice(0, MAX_ERROR_DETAIL_CHARS - 1)
            .join('')}…`
        : detail;
    super(capped ? `${capped} ${API_ERRORS[code].remedy}` : API_ERRORS[code].remedy);
    if (capped !== undefined) this.detail = capped;
  }

  get status(): ContentfulStatusCode {
    return API_ERRORS[this.code].status as ContentfulStatusCode;
  }

  body(): ApiErrorBody {
    return { error: { code: this.code, message: this.message } };
  }
}

/**
 * Codes raised below the API under another name. Issue 12, defect 4: a store
 * outage is unavailability, said with its own code, never `internal`.
 */
// The shared spend ledger is a store like the database: unreachable, the call is not made and the client is told to retry.
const API_CODE_OF: Readonly<Record<string, ApiErrorCode>> = { database_unreachable: 'store_unavailable', spend_ledger_unavailable: 'store_unavailable' };

/** Codes whose error message is written for the person who asked (the budget's says what the call would cost): it becomes the detail. */
const MESSAGE_IS_DETAIL: ReadonlySet<string> = new Set(['budget_exceeded']);

/**
 * Converts any error to the API's closed set, once, at the boundary (STYLE 7).
 * Errors are told apart by their `code` (issue 13, item 8), not by a chain of
 * instanceof checks: an API code is kept, with the error's `detail` when it has
 * one (ApiError, ServiceError); an error without a detail (the limiter's, the
 * store's) says the remedy only, since its message may name internals. Anything
 * else is `internal` with the remedy only — the original message and stack go
 * to the server log, never to the client. `isBug` says which of the two it was.
 */
export function toApiError(error: unknown): { readonly apiError: ApiError; readonly isBug: boolean } {
  const raw = errorCodeOf(error);
  const code = raw === undefined ? undefined : isApiErrorCode(raw) ? raw : API_CODE_OF[raw];
  if (code !== undefined && code !== 'internal') return { apiError: new ApiError(code, detailOf(error, raw!)), isBug: false };
  // S-198: a client that closed its connection before its body ended is no bug of the agent's, yet it was logged as
  // one, with Node's stack ("POST /v1/runs/…/feedback failed: Error: aborted at abortIncoming …"). Node's own error
  // for it, not an outbound call's ECONNRESET (those stay bugs: a provider or store resetting is unexpected here).
  if (raw === 'ECONNRESET' && (error as Error).message === 'aborted')
    return { apiError: new ApiError('invalid_request', 'The request body did not arrive whole: the connection closed before it ended.'), isBug: false };
  // Hono's own errors carry a status, not a code.
  if (error instanceof HTTPException) {
    const byStatus: Partial<Record<number, ApiErrorCode>> = { 400: 'invalid_request', 401: 'unauthorized', 404: 'not_found', 413: 'payload_too_large' };
    const fromStatus = byStatus[error.status];
    if (fromStatus) return { apiError: new ApiError(fromStatus), isBug: false };
  }
  return { apiError: new ApiError('internal'), isBug: true };
}

function detailOf(error: unknown, code: string): string | undefined {
  const detail = (error as { detail?: unknown }).detail;
  if (typeof detail === 'string') return detail;
  return MESSAGE_IS_DETAIL.has(code) ? (error as Error).message : undefined;
}
