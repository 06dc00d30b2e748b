import { API_ERRORS } from '@sandscope/api/errors';

/**
 * The rate-limiter contract (T-1: unbounded spend). This file names the contract
 * and nothing else; `in-process-limiter.ts` and `redis-limiter.ts` implement it
 * (sharing `limiter-checks.ts`) and `limiter.contract.ts` is the one suite both must pass.
 *
 * Two limits per client, where a client is the salted digest from `client-key.ts`
 * (T-9: no raw address reaches a limiter):
 * - a SLIDING window of `maxRequests` per `windowMs` — a sliding log, not fixed
 *   buckets, so a client cannot spend 2×N across a bucket boundary;
 * - a DAILY token ceiling, reset at 00:00 UTC.
 *
 * Issue 12, defect 1: the ceiling used to be checked at admission and charged when
 * a run ended, so every run admitted before the first one finished was free —
 * `DAILY_TOKEN_CEILING=5000` with 200 concurrent runs used 84,640 tokens. A run now
 * RESERVES its tokens in the same atomic step that admits it (`admit(…, reserveTokens)`)
 * and SETTLES to what it used when it ends (`settleTokens`), releasing the rest.
 * Admission needs settled + reserved tokens to be below the ceiling, so however
 * many runs arrive at once, the total overshoots the ceiling by less than one
 * run's reservation (and not at all while each run keeps within its reservation,
 * which the run's spend guard enforces).
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
  | { readonly allowed: true; readonly remaining: number; readonly reservation?: TokenReservation }
  | { readonly allowed: false; readonly reason: RefusalReason; readonly retryAfterMs: number };

/**
 * Tokens set aside for one run when it was admitted (issue 12, defect 1), until
 * `settleTokens` replaces them with what the run used. Carries everything the
 * settlement needs, so any replica can settle it.
 */
export interface TokenReservation {
  readonly clientKey: string;
  /** Unique per reservation (a random UUID). */
  readonly id: string;
  readonly tokens: number;
  /** The UTC day (`YYYY-MM-DD`) it was made on: it is settled against that day's count, even after midnight. */
  readonly day: string;
}

/** The limits a limiter enforces. Validated by `assertLimiterPolicy`. */
export interface LimiterPolicy {
  /** Length of the sliding window, in milliseconds. */
  readonly windowMs: number;
  /** Requests admitted per client within any `windowMs` span. */
  readonly maxRequests: number;
  /** Model tokens a client may consume per UTC day. */
  readonly dailyTokenCeiling: number;
  /**
   * How long an unsettled reservation holds its tokens (default
   * `DEFAULT_RESERVATION_TTL_MS`). A reservation whose process died is never
   * settled; after this it is released, so a crash cannot lock a client out
   * until midnight. Longer than any run can take.
   */
  readonly reservationTtlMs?: number;
}

/** 15 minutes: far longer than a run (four model calls, each bounded by the provider timeout and failover). */
export const DEFAULT_RESERVATION_TTL_MS = 15 * 60_000;

/**
 * Retry-After for a request refused because other runs' reservations fill the
 * ceiling (defect 1). Those are released as the runs end — usually within
 * seconds — so the honest advice is "soon", not "at midnight".
 */
export const RESERVED_RETRY_AFTER_MS = 1_000;

export interface RateLimiter {
  /**
   * Admit one request from `clientKey` at time `now` (epoch ms; injected so the
   * window is tested by advancing a number, not by waiting), and — when
   * `reserveTokens` (a non-negative integer, default 0) is positive — reserve that
   * many of today's tokens for it in the same atomic step (defect 1). The
   * admission then carries the `reservation`; the caller must settle it once.
   *
   * Refuses with `daily_tokens_exhausted` when today's settled tokens are spent,
   * otherwise with `rate_limited` when the window is full, or — only when
   * reserving — when settled plus reserved tokens have reached the ceiling (other
   * runs hold the rest; `retryAfterMs` is `RESERVED_RETRY_AFTER_MS`, since those
   * runs release what they do not use as they end). A refused request is NOT
   * recorded and reserves nothing, so the window's `retryAfterMs` is truthful:
   * calling again after it has elapsed is admitted.
   *
   * @throws LimiterUnavailableError when the store cannot be reached. Refuse.
   */
  admit(clientKey: string, now: number, reserveTokens?: number): Promise<Admission>;

  /**
   * End a reservation: release it and record `actualTokens` (a non-negative
   * integer: what the run used) against the day it was made. Like `chargeTokens`,
   * the actual is always recorded, even when it is more than was reserved or the
   * reservation had already expired. Settle each reservation once: settling again
   * records the actual again.
   *
   * Returns what `chargeTokens` returns for that day's settled total.
   *
   * @throws LimiterUnavailableError when the store cannot be reached. The
   *   reservation is then released by expiry (`reservationTtlMs`).
   */
  settleTokens(reservation: TokenReservation, actualTokens: number, now: number): Promise<Admission>;

  /**
   * Record `tokens` (a non-negative integer) consumed by `clientKey` at `now`.
   *
   * The charge is ALWAYS recorded — tokens already consumed cannot be un-spent, and
   * dropping an over-ceiling charge would let a client exceed the ceiling for free.
   * A charge made without a reservation is not bounded by admission (defect 1):
   * runs reserve and settle; this is for spend that had no admission. Returns `allowed: false`
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

/** One-line remedy per code (STYLE rule 8): the API's, since these codes are answered over HTTP as they are. */
export const LIMIT_ERROR_REMEDIES: Readonly<Record<LimitErrorCode, string>> = {
  rate_limited: API_ERRORS.rate_limited.remedy,
  daily_tokens_exhausted: API_ERRORS.daily_tokens_exhausted.remedy,
  limiter_unavailable: API_ERRORS.limiter_unavailable.remedy,
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
