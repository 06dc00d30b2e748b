import { afterEach, describe, expect, it } from 'vitest';
import { MS_PER_DAY } from './limiter-checks.ts';
import { type LimiterPolicy, type RateLimiter, type TokenReservation, RESERVED_RETRY_AFTER_MS } from './limiter.ts';

/**
 * The one contract every `RateLimiter` must pass (STYLE rule 11), run by
 * `in-process-limiter.test.ts` and `redis-limiter.int.test.ts`.
 */
export interface LimiterContractHarness {
  /** A fresh limiter with an empty store under `policy`. */
  create(policy: LimiterPolicy): Promise<RateLimiter>;
  /**
   * Present when two instances can share one store (replicas): a second instance
   * over the SAME store as the limiter `create` returned last.
   */
  createReplica?(policy: LimiterPolicy): Promise<RateLimiter>;
}

/** Noon UTC on an arbitrary day, so window tests never straddle midnight by accident. */
const T0 = Date.UTC(2026, 2, 14, 12, 0, 0);

/** Deterministic PRNG, so a failing concurrency run reproduces. */
function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What a run-shaped concurrency test measured. */
export interface CeilingMeasurement {
  readonly admitted: number;
  readonly refused: number;
  /** Tokens the admitted runs used (what they settled). */
  readonly used: number;
}

/**
 * Defect 1 as a workload: `runs` concurrent runs, each admitted with a
 * reservation, running for a few ms, and settling to a random actual within it;
 * arrivals are spread over a few ms so later runs see earlier runs' settlements.
 * `limiters[i % n]` admits run i — two entries are two replicas on one store.
 */
export async function concurrentRuns(
  limiters: readonly RateLimiter[],
  clientKey: string,
  options: { runs: number; reservation: number; seed: number; now: number },
): Promise<CeilingMeasurement> {
  const random = mulberry32(options.seed);
  let admitted = 0;
  let refused = 0;
  let used = 0;
  await Promise.all(
    Array.from({ length: options.runs }, async (_, i) => {
      const limiter = limiters[i % limiters.length]!;
      const arriveAfter = Math.floor(random() * 30);
      const runFor = Math.floor(random() * 8);
      const actual = Math.floor(options.reservation * (0.25 + 0.75 * random()));
      await sleep(arriveAfter);
      const admission = await limiter.admit(clientKey, options.now + i, options.reservation);
      if (!admission.allowed) {
        refused += 1;
        return;
      }
      admitted += 1;
      await sleep(runFor);
      used += actual;
      await limiter.settleTokens(admission.reservation!, actual, options.now + i);
    }),
  );
  return { admitted, refused, used };
}

/** Distinct, digest-shaped client keys per test, so a shared store never leaks counts between tests. */
let clientCounter = 0;
function newClientKey(label: string): string {
  clientCounter += 1;
  return `${label}-${clientCounter.toString(16).padStart(8, '0')}-${Math.random().toString(16).slice(2, 10)}`;
}

export function describeLimiterContract(name: string, harness: LimiterContractHarness): void {
  describe(`RateLimiter contract: ${name}`, () => {
    const open: RateLimiter[] = [];
    const make = async (policy: LimiterPolicy): Promise<RateLimiter> => {
      const limiter = await harness.create(policy);
      open.push(limiter);
      return limiter;
    };
    afterEach(async () => {
      await Promise.all(open.splice(0).map((l) => l.close()));
    });

    it('admits exactly N requests in a window, then refuses with rate_limited', async () => {
      const limiter = await make({ windowMs: 60_000, maxRequests: 5, dailyTokenCeiling: 1_000 });
      const client = newClientKey('exact');
      const remaining: number[] = [];
      for (let i = 0; i < 5; i += 1) {
        const a = await limiter.admit(client, T0 + i);
        expect(a.allowed).toBe(true);
        if (a.allowed) remaining.push(a.remaining);
      }
      expect(remaining).toEqual([4, 3, 2, 1, 0]);
      const refused = await limiter.admit(client, T0 + 10);
      expect(refused).toEqual({ allowed: false, reason: 'rate_limited', retryAfterMs: 60_000 - 10 });
    });

    it('slides: each admission expires windowMs after it was made, not at a bucket boundary', async () => {
      const limiter = await make({ windowMs: 1_000, maxRequests: 3, dailyTokenCeiling: 1_000 });
      const client = newClientKey('slide');
      for (const t of [0, 500, 900]) {
        expect((await limiter.admit(client, T0 + t)).allowed).toBe(true);
      }
      expect(await limiter.admit(client, T0 + 950)).toEqual({
        allowed: false,
        reason: 'rate_limited',
        retryAfterMs: 50,
      });
      expect(await limiter.admit(client, T0 + 999)).toMatchObject({ allowed: false, retryAfterMs: 1 });
      // The admission at 0 leaves the window at exactly 1000; the others are still in it.
      // A fixed window would now admit three more; a sliding one admits exactly one.
      expect(await limiter.admit(client, T0 + 1_000)).toEqual({ allowed: true, remaining: 0 });
      expect(await limiter.admit(client, T0 + 1_001)).toEqual({
        allowed: false,
        reason: 'rate_limited',
        retryAfterMs: 499,
      });
      expect((await limiter.admit(client, T0 + 1_499)).allowed).toBe(false);
      expect(await limiter.admit(client, T0 + 1_500)).toEqual({ allowed: true, remaining: 0 });
    });

    it('does not record refusals: hammering does not extend the wait, and retryAfterMs is truthful', async () => {
      const limiter = await make({ windowMs: 10_000, maxRequests: 2, dailyTokenCeiling: 1_000 });
      const client = newClientKey('hammer');
      await limiter.admit(client, T0);
      await limiter.admit(client, T0 + 1);
      let last = await limiter.admit(client, T0 + 2);
      for (let t = 3; t < 50; t += 1) last = await limiter.admit(client, T0 + t);
      expect(last).toEqual({ allowed: false, reason: 'rate_limited', retryAfterMs: 10_000 - 49 });
      if (last.allowed) throw new Error('unreachable');
      expect(await limiter.admit(client, T0 + 49 + last.retryAfterMs)).toEqual({ allowed: true, remaining: 0 });
    });

    it('keeps clients independent', async () => {
      const limiter = await make({ windowMs: 60_000, maxRequests: 2, dailyTokenCeiling: 100 });
      const a = newClientKey('a');
      const b = newClientKey('b');
      await limiter.admit(a, T0);
      await limiter.admit(a, T0);
      expect((await limiter.admit(a, T0)).allowed).toBe(false);
      expect(await limiter.admit(b, T0)).toEqual({ allowed: true, remaining: 1 });

      await limiter.chargeTokens(a, 100, T0);
      expect(await limiter.admit(a, T0 + 120_000)).toMatchObject({ reason: 'daily_tokens_exhausted' });
      expect(await limiter.admit(b, T0 + 120_000)).toEqual({ allowed: true, remaining: 1 });
    });

    it('admits many concurrent requests at the same instant exactly N times (atomic)', async () => {
      const limiter = await make({ windowMs: 60_000, maxRequests: 7, dailyTokenCeiling: 1_000 });
      const client = newClientKey('burst');
      const results = await Promise.all(Array.from({ length: 40 }, () => limiter.admit(client, T0)));
      expect(results.filter((r) => r.allowed)).toHaveLength(7);
      expect(results.filter((r) => !r.allowed && r.reason === 'rate_limited')).toHaveLength(33);
    });

    it('enforces the daily token ceiling, counting down, refusing at the ceiling, resetting at 00:00 UTC', async () => {
      const limiter = await make({ windowMs: 1_000, maxRequests: 100, dailyTokenCeiling: 1_000 });
      const client = newClientKey('tokens');
      expect(await limiter.chargeTokens(client, 400, T0)).toEqual({ allowed: true, remaining: 600 });
      expect(await limiter.chargeTokens(client, 0, T0)).toEqual({ allowed: true, remaining: 600 });
      expect(await limiter.admit(client, T0 + 1)).toMatchObject({ allowed: true });

      const untilMidnight = MS_PER_DAY / 2 - 2; // T0 is noon; T0 + 2 is 2 ms later
      expect(await limiter.chargeTokens(client, 600, T0 + 2)).toEqual({
        allowed: false,
        reason: 'daily_tokens_exhausted',
        retryAfterMs: untilMidnight,
      });
      // Reaching the ceiling refuses the next request even though the window is empty.
      expect(await limiter.admit(client, T0 + 5_000)).toEqual({
        allowed: false,
        reason: 'daily_tokens_exhausted',
        retryAfterMs: MS_PER_DAY / 2 - 5_000,
      });
      // Charges are recorded even past the ceiling: spent tokens cannot be un-spent.
      expect(await limiter.chargeTokens(client, 50, T0 + 6_000)).toMatchObject({
        allowed: false,
        reason: 'daily_tokens_exhausted',
      });

      const lastMsOfDay = T0 + MS_PER_DAY / 2 - 1;
      expect(await limiter.admit(client, lastMsOfDay)).toEqual({
        allowed: false,
        reason: 'daily_tokens_exhausted',
        retryAfterMs: 1,
      });
      const nextDay = T0 + MS_PER_DAY / 2;
      expect(await limiter.admit(client, nextDay)).toEqual({ allowed: true, remaining: 99 });
      expect(await limiter.chargeTokens(client, 1, nextDay)).toEqual({ allowed: true, remaining: 999 });
    });

    describe('reserve at admission, settle at the end (issue 12, defect 1)', () => {
      it('reserves while settled + reserved tokens are under the ceiling, then refuses rate_limited without recording the request', async () => {
        const limiter = await make({ windowMs: 60_000, maxRequests: 10, dailyTokenCeiling: 1_000 });
        const client = newClientKey('reserve');
        const reservations: TokenReservation[] = [];
        for (let i = 0; i < 3; i += 1) {
          const a = await limiter.admit(client, T0 + i, 400);
          expect(a).toMatchObject({ allowed: true, remaining: 9 - i, reservation: { clientKey: client, tokens: 400 } });
          if (a.allowed && a.reservation) reservations.push(a.reservation);
        }
        expect(new Set(reservations.map((r) => r.id)).size).toBe(3);
        // 1,200 reserved against 1,000: the overshoot is less than one reservation, and no fourth run starts.
        expect(await limiter.admit(client, T0 + 3, 400)).toEqual({ allowed: false, reason: 'rate_limited', retryAfterMs: RESERVED_RETRY_AFTER_MS });
        // The refusal was not recorded in the window, and a request that reserves nothing is still admitted.
        expect(await limiter.admit(client, T0 + 4)).toEqual({ allowed: true, remaining: 6 });
      });

      it('settling releases the unused part and records the actual; the released tokens admit the next run', async () => {
        const limiter = await make({ windowMs: 60_000, maxRequests: 100, dailyTokenCeiling: 1_000 });
        const client = newClientKey('settle');
        const first = await limiter.admit(client, T0, 600);
        const second = await limiter.admit(client, T0 + 1, 600);
        expect(second.allowed && second.reservation).toBeTruthy();
        expect(await limiter.admit(client, T0 + 2, 600)).toMatchObject({ allowed: false, reason: 'rate_limited' });
        if (!first.allowed || !first.reservation || !second.allowed || !second.reservation) throw new Error('unreachable');

        expect(await limiter.settleTokens(first.reservation, 150, T0 + 3)).toEqual({ allowed: true, remaining: 850 });
        expect(await limiter.settleTokens(second.reservation, 200, T0 + 4)).toEqual({ allowed: true, remaining: 650 });
        // Nothing is held now: 350 settled, so a run reserving 600 fits, and so does one more (350 + 600 < 1,000).
        const third = await limiter.admit(client, T0 + 5, 600);
        expect(third).toMatchObject({ allowed: true, reservation: { tokens: 600 } });
        expect(await limiter.chargeTokens(client, 0, T0 + 6)).toEqual({ allowed: true, remaining: 650 });
      });

      it('records the actual even beyond the reservation, and refuses daily_tokens_exhausted once the settled total reaches the ceiling', async () => {
        const limiter = await make({ windowMs: 60_000, maxRequests: 100, dailyTokenCeiling: 1_000 });
        const client = newClientKey('over');
        const a = await limiter.admit(client, T0, 300);
        if (!a.allowed || !a.reservation) throw new Error('expected a reservation');
        expect(await limiter.settleTokens(a.reservation, 1_200, T0 + 1)).toEqual({
          allowed: false,
          reason: 'daily_tokens_exhausted',
          retryAfterMs: MS_PER_DAY / 2 - 1,
        });
        expect(await limiter.admit(client, T0 + 2, 300)).toMatchObject({ allowed: false, reason: 'daily_tokens_exhausted' });
      });

      it('a reservation nobody settles (its process died) is released after reservationTtlMs; settling it late records the actual once', async () => {
        const limiter = await make({ windowMs: 1_000, maxRequests: 100, dailyTokenCeiling: 1_000, reservationTtlMs: 5_000 });
        const client = newClientKey('expire');
        const lost = await limiter.admit(client, T0, 1_000);
        if (!lost.allowed || !lost.reservation) throw new Error('expected a reservation');
        expect(await limiter.admit(client, T0 + 4_999, 1_000)).toMatchObject({ allowed: false, reason: 'rate_limited' });
        const next = await limiter.admit(client, T0 + 5_000, 400);
        expect(next).toMatchObject({ allowed: true, reservation: { tokens: 400 } });
        // The late settlement does not release a second time (which would free tokens `next` holds).
        expect(await limiter.settleTokens(lost.reservation, 100, T0 + 6_000)).toEqual({ allowed: true, remaining: 900 });
        expect(await limiter.admit(client, T0 + 6_001, 500)).toMatchObject({ allowed: true });
        expect(await limiter.admit(client, T0 + 6_002, 1)).toMatchObject({ allowed: false, reason: 'rate_limited' });
      });

      it('a reservation is settled against the day it was made, not the day it ends', async () => {
        const limiter = await make({ windowMs: 1_000, maxRequests: 100, dailyTokenCeiling: 1_000 });
        const client = newClientKey('midnight');
        const lastMsOfDay = T0 + MS_PER_DAY / 2 - 1;
        const a = await limiter.admit(client, lastMsOfDay, 500);
        if (!a.allowed || !a.reservation) throw new Error('expected a reservation');
        const nextDay = lastMsOfDay + 10;
        await limiter.settleTokens(a.reservation, 900, nextDay);
        expect(await limiter.chargeTokens(client, 0, nextDay)).toEqual({ allowed: true, remaining: 1_000 });
        expect(await limiter.admit(client, nextDay + 1, 1_000)).toMatchObject({ allowed: true });
      });

      it('1,000 concurrent runs never take the settled total past the ceiling by more than one reservation', async () => {
        const ceiling = 50_000;
        const reservation = 500;
        const limiter = await make({ windowMs: 60_000, maxRequests: 10_000, dailyTokenCeiling: ceiling });
        const m = await concurrentRuns([limiter], newClientKey('thousand'), { runs: 1_000, reservation, seed: 20260314, now: T0 });
        console.log(
          `defect 1 contract (${name}, one instance): ${m.admitted}/1000 admitted, ${m.used} tokens used against a ceiling of ${ceiling} (+ one reservation ${reservation})`,
        );
        expect(m.admitted + m.refused).toBe(1_000);
        expect(m.refused).toBeGreaterThan(0); // contended: the ceiling, not the arrivals, decided
        expect(m.used).toBeGreaterThan(ceiling / 2);
        expect(m.used).toBeLessThanOrEqual(ceiling + reservation);
      });
    });

    it('rejects caller bugs with RangeError rather than guessing', async () => {
      const limiter = await make({ windowMs: 1_000, maxRequests: 1, dailyTokenCeiling: 10 });
      await expect(limiter.admit('', T0)).rejects.toThrow(RangeError);
      await expect(limiter.admit(newClientKey('nan'), Number.NaN)).rejects.toThrow(RangeError);
      await expect(limiter.chargeTokens(newClientKey('neg'), -1, T0)).rejects.toThrow(RangeError);
      await expect(limiter.chargeTokens(newClientKey('frac'), 1.5, T0)).rejects.toThrow(RangeError);
      await expect(limiter.admit(newClientKey('reserve-neg'), T0, -1)).rejects.toThrow(RangeError);
      await expect(limiter.admit(newClientKey('reserve-frac'), T0, 0.5)).rejects.toThrow(RangeError);
      const forged: TokenReservation = { clientKey: newClientKey('forged'), id: '', tokens: 10, day: '2026-03-14' };
      await expect(limiter.settleTokens(forged, 1, T0)).rejects.toThrow(RangeError);
      const a = await limiter.admit(newClientKey('settle-neg'), T0, 5);
      if (!a.allowed || !a.reservation) throw new Error('expected a reservation');
      await expect(limiter.settleTokens(a.reservation, -1, T0)).rejects.toThrow(RangeError);
    });

    const { createReplica } = harness;
    if (createReplica) {
      it('shares counts between replicas on the same store', async () => {
        const policy = { windowMs: 60_000, maxRequests: 4, dailyTokenCeiling: 500 };
        const first = await make(policy);
        const second = await createReplica(policy);
        open.push(second);
        const client = newClientKey('replica');
        expect(await first.admit(client, T0)).toEqual({ allowed: true, remaining: 3 });
        expect(await second.admit(client, T0 + 1)).toEqual({ allowed: true, remaining: 2 });
        expect(await first.admit(client, T0 + 2)).toEqual({ allowed: true, remaining: 1 });
        expect(await second.admit(client, T0 + 3)).toEqual({ allowed: true, remaining: 0 });
        expect(await first.admit(client, T0 + 4)).toMatchObject({ allowed: false, reason: 'rate_limited' });
        expect(await second.admit(client, T0 + 5)).toMatchObject({ allowed: false, reason: 'rate_limited' });

        const other = newClientKey('replica-tokens');
        expect(await first.chargeTokens(other, 300, T0)).toEqual({ allowed: true, remaining: 200 });
        expect(await second.chargeTokens(other, 200, T0)).toMatchObject({
          allowed: false,
          reason: 'daily_tokens_exhausted',
        });
        expect(await first.admit(other, T0 + 1)).toMatchObject({ reason: 'daily_tokens_exhausted' });
      });

      it('1,000 concurrent runs split over two replicas never take the total past the ceiling by more than one reservation (defect 1)', async () => {
        const ceiling = 50_000;
        const reservation = 500;
        const policy = { windowMs: 60_000, maxRequests: 10_000, dailyTokenCeiling: ceiling };
        const first = await make(policy);
        const second = await createReplica(policy);
        open.push(second);
        const m = await concurrentRuns([first, second], newClientKey('replica-thousand'), { runs: 1_000, reservation, seed: 20260315, now: T0 });
        console.log(
          `defect 1 contract (${name}, two replicas): ${m.admitted}/1000 admitted, ${m.used} tokens used against a ceiling of ${ceiling} (+ one reservation ${reservation})`,
        );
        expect(m.refused).toBeGreaterThan(0);
        expect(m.used).toBeGreaterThan(ceiling / 2);
        expect(m.used).toBeLessThanOrEqual(ceiling + reservation);
      });
    }
  });
}
