import type { Context } from 'hono';
import { errorCodeOf } from '@sandscope/engine';
import { createMiddleware } from 'hono/factory';
import { clientKeyFor } from './client-key.ts';
import { type LimitErrorCode, type RateLimiter, type TokenReservation, LIMIT_ERROR_REMEDIES } from './limiter.ts';

/** Context variables set by `rateLimit` for the handlers after it. */
export interface RateLimitVariables {
  /**
   * The salted client digest (T-9). Handlers charge tokens against this —
   * `limiter.chargeTokens(c.get('clientKey'), …)` — and never see the raw address.
   */
  clientKey: string;
  /**
   * The tokens reserved for this request at admission (issue 12, defect 1), when
   * the middleware was given `reserveTokens`. The handler that will settle them
   * `take()`s the reservation (once; later calls return undefined); a reservation
   * nobody took — a request refused by validation before any run — is released
   * when the handler returns.
   */
  heldTokens: HeldTokens;
}

export interface HeldTokens {
  take(): TokenReservation | undefined;
}

export interface RateLimitOptions {
  readonly limiter: RateLimiter;
  /** IP_SALT: the HMAC key that turns an address into a client key. */
  readonly salt: string;
  /**
   * The client's address, however this deployment learns it (socket address, or a
   * proxy header the deployment trusts). Used only as the HMAC input.
   */
  readonly clientIp: (c: Context) => string;
  /** Clock; injected for tests. Default `Date.now`. */
  readonly now?: () => number;
  /**
   * Told why a request was refused 503: a refusal an operator cannot see sends them looking for an outage that may
   * be a slow reply under load (a colleague's burst of 40 runs on a healthy Redis got one 503 and no log line).
   */
  readonly onUnavailable?: (error: Error) => void;
  /**
   * Tokens to reserve against the client's daily ceiling in the same atomic step
   * as admission (defect 1): one run's allowance (RUN_TOKEN_BUDGET). Default 0 —
   * for routes that make no model call.
   */
  readonly reserveTokens?: number;
}

/** The JSON body of every refusal from this middleware. */
export interface LimitErrorBody {
  readonly error: { readonly code: LimitErrorCode; readonly message: string };
}

/**
 * Admit or refuse each request before any work (or spend) happens (T-1).
 *
 * - admitted → next handler, with `clientKey` set;
 * - over the window → 429 `rate_limited`, over today's tokens → 429
 *   `daily_tokens_exhausted`, both with `Retry-After` (seconds, rounded up);
 * - reserving, and other runs' reservations fill the ceiling → 429 `rate_limited`
 *   (they release what they do not use as they end; defect 1);
 * - store unreachable → 503 `limiter_unavailable`. FAIL CLOSED: an outage is
 *   unavailability, never unlimited admission (seed §5; D-013 is why the tests
 *   assert this exact status and body rather than "any status ≥ 400").
 *
 * Any other error is a bug and propagates to the app's `onError` (still not admitted).
 */
export function rateLimit(options: RateLimitOptions) {
  const { limiter, salt, clientIp } = options;
  const now = options.now ?? Date.now;
  const reserveTokens = options.reserveTokens ?? 0;
  if (salt.length === 0) {
    throw new RangeError('rateLimit: salt must be non-empty (IP_SALT)');
  }

  return createMiddleware<{ Variables: RateLimitVariables }>(async (c, next) => {
    const clientKey = clientKeyFor(salt, clientIp(c));
    let admission;
    try {
      admission = await limiter.admit(clientKey, now(), reserveTokens);
    } catch (error) {
      if (errorCodeOf(error) === 'limiter_unavailable') {
        options.onUnavailable?.(error as Error);
        return c.json<LimitErrorBody>({ error: { code: 'limiter_unavailable', message: LIMIT_ERROR_REMEDIES.limiter_unavailable } }, 503);
      }
      throw error;
    }

    if (!admission.allowed) {
      c.header('Retry-After', String(Math.max(1, Math.ceil(admission.retryAfterMs / 1000))));
      return c.json<LimitErrorBody>({ error: { code: admission.reason, message: LIMIT_ERROR_REMEDIES[admission.reason] } }, 429);
    }

    c.set('clientKey', clientKey);
    let reservation = admission.reservation;
    c.set('heldTokens', {
      take: () => {
        const taken = reservation;
        reservation = undefined;
        return taken;
      },
    });
    try {
      await next();
    } finally {
      if (reservation) {
        const untaken = reservation;
        reservation = undefined;
        // Nothing ran, so nothing was used. If the store is unreachable now, the reservation expires by itself.
        await limiter.settleTokens(untaken, 0, now()).catch(() => {});
      }
    }
  });
}
