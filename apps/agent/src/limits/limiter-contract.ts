import { afterEach, describe, expect, it } from 'vitest';
import { type LimiterPolicy, type RateLimiter, MS_PER_DAY } from './limiter.ts';

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

    it('rejects caller bugs with RangeError rather than guessing', async () => {
      const limiter = await make({ windowMs: 1_000, maxRequests: 1, dailyTokenCeiling: 10 });
      await expect(limiter.admit('', T0)).rejects.toThrow(RangeError);
      await expect(limiter.admit(newClientKey('nan'), Number.NaN)).rejects.toThrow(RangeError);
      await expect(limiter.chargeTokens(newClientKey('neg'), -1, T0)).rejects.toThrow(RangeError);
      await expect(limiter.chargeTokens(newClientKey('frac'), 1.5, T0)).rejects.toThrow(RangeError);
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
    }
  });
}
