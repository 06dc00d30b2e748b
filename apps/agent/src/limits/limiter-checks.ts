import type { LimiterPolicy, TokenReservation } from './limiter.ts';

/*
 * What every limiter implementation shares: the UTC day arithmetic of the daily
 * ceiling and the argument checks that turn a caller's bug into a RangeError.
 * Kept out of limiter.ts so that file is the contract alone (issue 13, item 5).
 */

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
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
      throw new RangeError(`LimiterPolicy.${name} must be a positive integer (got ${String(value)})`);
    }
  };
  positiveInteger('windowMs');
  positiveInteger('maxRequests');
  positiveInteger('dailyTokenCeiling');
  if (policy.reservationTtlMs !== undefined) positiveInteger('reservationTtlMs');
}

/** Throws RangeError for a reservation that no limiter made (a caller bug). */
export function assertReservation(reservation: TokenReservation): void {
  const ok =
    typeof reservation === 'object' &&
    reservation !== null &&
    typeof reservation.clientKey === 'string' &&
    reservation.clientKey.length > 0 &&
    typeof reservation.id === 'string' &&
    reservation.id.length > 0 &&
    Number.isSafeInteger(reservation.tokens) &&
    reservation.tokens > 0 &&
    /^\d{4}-\d{2}-\d{2}$/.test(reservation.day);
  if (!ok) throw new RangeError('reservation must be one returned by admit(…, reserveTokens) on a limiter');
}

/** Epoch ms at which the UTC day `day` (`YYYY-MM-DD`) ends. */
export function endOfUtcDay(day: string): number {
  return Date.parse(`${day}T00:00:00.000Z`) + MS_PER_DAY;
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
