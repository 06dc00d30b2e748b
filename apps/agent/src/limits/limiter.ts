/**
 * The rate-limiter contract (T-1: unbounded spend). This file names the contract
 * and nothing else; `in-process-limiter.ts` and `redis-limiter.ts` implement it and
 * `limiter-contract.ts` is the one suite both must pass.
 *
 * Two limits per client, where a client is the salted digest from `client-key.ts`
 * (T-9: no raw address reaches a limiter):
 * - a SLIDING window of `maxRequests` per `windowMs` — a sliding log, not fixed
 *   buckets, so a client cannot spend 2×N across a bucket boundary;
 * - a DAILY token ceiling, reset at 00:00 UTC.
 *
 * A refusal is a value (`Admission` with `allowed: false`), not an error. An
 * unreachable store is an error — `LimiterUnavailableError` — and every caller must
 * treat it as a refusal (fail closed): an outage becomes unavailability, never
 * unlimited free model calls for whoever finds the URL.
 */

/** Why a client was refused. A closed union; `LIMIT_ERROR_REMEDIES` gives each a remedy. */
export type RefusalReason = 'rate_limited' | 'daily_tokens_exhausted';

/**
 * The answer to "may this client proceed?".
 * - `remaining` — for `admit`, requests left in the current window after this one;
 *   for `chargeTokens`, tokens left today after this charge.
 * - `retryAfterMs` — how long until the same call would be allowed (always ≥ 1).
 */
export type Admission =
  | { readonly allowed: true; readonly remaining: number }
  | { readonly allowed: false; readonly reason: RefusalReason; readonly retryAfterMs: number };

/** The limits a limiter enforces. Validated by `assertLimiterPolicy`. */
export interface LimiterPolicy {
  /** Length of the sliding window, in milliseconds. */
  readonly windowMs: number;
  /** Requests admitted per client within any `windowMs` span. */
  readonly maxRequests: number;
  /** Model tokens a client may consume per UTC day. */
  readonly dailyTokenCeiling: number;
}

export interface RateLimiter {
  /**
   * Admit one request from `clientKey` at time `now` (epoch ms; injected so the
   * window is tested by advancing a number, not by waiting).
   *
   * Refuses with `daily_tokens_exhausted` when today's tokens are spent, otherwise
   * with `rate_limited` when the window is full. A refused request is NOT recorded,
   * so `retryAfterMs` is truthful: calling again after it has elapsed is admitted.
   *
   * @throws LimiterUnavailableError when the store cannot be reached. Refuse.
   */
  admit(clientKey: string, now: number): Promise<Admission>;

  /**
   * Record `tokens` (a non-negative integer) consumed by `clientKey` at `now`.
   *
   * The charge is ALWAYS recorded — tokens already consumed cannot be un-spent, and
   * dropping an over-ceiling charge would let a client exceed the ceiling for free.
   * The ceiling is enforced at admission, so the overshoot is bounded by one run
   * (whose money is capped separately by the spend guard). Returns `allowed: false`
   * once today's total has reached the ceiling: the caller should stop spending on
   * this client (e.g. make no further model call in this run).
   *
   * @throws LimiterUnavailableError when the store cannot be reached. Refuse.
   */
  chargeTokens(clientKey: string, tokens: number, now: number): Promise<Admission>;

  /** Release connections or timers. Idempotent. */
  close(): Promise<void>;
}

/** Every error code the limits layer can answer with over HTTP. */
export type LimitErrorCode = RefusalReason | 'limiter_unavailable';

/** One-line remedy per code (STYLE rule 8). */
export const LIMIT_ERROR_REMEDIES: Readonly<Record<LimitErrorCode, string>> = {
  rate_limited: 'Too many requests from this client; wait for the Retry-After interval and try again.',
  daily_tokens_exhausted:
    "This client has used today's model-token allowance; it resets at 00:00 UTC (see Retry-After).",
  limiter_unavailable:
    'Rate limiter store is unreachable; requests are refused until it recovers (fail closed).',
};

/**
 * The limiter's store (e.g. Redis) could not be reached or did not answer in time.
 * Not a refusal value on purpose: a refusal says "this client is over its limit",
 * this says "nobody can know" — and the only safe answer to that is also "no".
 */
export class LimiterUnavailableError extends Error {
  readonly code = 'limiter_unavailable' as const;
  override readonly name = 'LimiterUnavailableError';

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

export const MS_PER_DAY = 86_400_000;

/** The UTC day `now` falls in, as `YYYY-MM-DD` — the daily ceiling's bucket. */
export function utcDay(now: number): string {
  return new Date(Math.floor(now / MS_PER_DAY) * MS_PER_DAY).toISOString().slice(0, 10);
}

/** Milliseconds from `now` until the next 00:00 UTC, when the daily ceiling resets. Always ≥ 1. */
export function msUntilUtcMidnight(now: number): number {
  return (Math.floor(now / MS_PER_DAY) + 1) * MS_PER_DAY - now;
}

/** Throws RangeError for a policy that would silently admit everything or nothing. */
export function assertLimiterPolicy(policy: LimiterPolicy): void {
  const positiveInteger = (name: keyof LimiterPolicy): void => {
    const value = policy[name];
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new RangeError(`LimiterPolicy.${name} must be a positive integer (got ${String(value)})`);
    }
  };
  positiveInteger('windowMs');
  positiveInteger('maxRequests');
  positiveInteger('dailyTokenCeiling');
}

/** Throws RangeError for arguments that are bugs in the caller, not client behaviour. */
export function assertLimiterArgs(clientKey: string, now: number, tokens?: number): void {
  if (typeof clientKey !== 'string' || clientKey.length === 0) {
    throw new RangeError('clientKey must be a non-empty string (the salted client digest)');
  }
  if (!Number.isFinite(now) || now < 0) {
    throw new RangeError(`now must be a non-negative epoch time in ms (got ${String(now)})`);
  }
  if (tokens !== undefined && (!Number.isSafeInteger(tokens) || tokens < 0)) {
    throw new RangeError(`tokens must be a non-negative integer (got ${String(tokens)})`);
  }
}
