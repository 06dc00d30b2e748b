import { describe, expect, it } from 'vitest';
import { InProcessLimiter } from './in-process-limiter.ts';
import { describeLimiterContract } from './limiter.contract.ts';

describeLimiterContract('in-process', {
  create: async (policy) => new InProcessLimiter(policy),
});

describe('InProcessLimiter bounded memory', () => {
  const policy = { windowMs: 60_000, maxRequests: 2, dailyTokenCeiling: 100 };

  it('never tracks more than maxClients, forgetting the least recently seen first', async () => {
    const limiter = new InProcessLimiter({ ...policy, maxClients: 3 });
    for (let i = 0; i < 1_000; i += 1) await limiter.admit(`client-${i}`, 1_000 + i);
    expect(limiter.trackedClients).toBe(3);

    const fresh = new InProcessLimiter({ ...policy, maxClients: 3 });
    await fresh.admit('a', 0);
    await fresh.admit('a', 0);
    await fresh.admit('b', 1);
    await fresh.admit('c', 2);
    await fresh.admit('a', 3); // refused, but marks `a` recently used
    await fresh.admit('d', 4); // evicts `b`, the least recently seen
    expect(fresh.trackedClients).toBe(3);
    expect(await fresh.admit('a', 5)).toMatchObject({ allowed: false, reason: 'rate_limited' });
    expect(await fresh.admit('b', 6)).toEqual({ allowed: true, remaining: 1 });
  });

  it('rejects a policy that would admit everything or nothing', () => {
    expect(() => new InProcessLimiter({ ...policy, maxRequests: 0 })).toThrow(/maxRequests/);
    expect(() => new InProcessLimiter({ ...policy, windowMs: Number.NaN })).toThrow(/windowMs/);
    expect(() => new InProcessLimiter({ ...policy, dailyTokenCeiling: -5 })).toThrow(/dailyTokenCeiling/);
    expect(() => new InProcessLimiter({ ...policy, maxClients: 0 })).toThrow(/maxClients/);
  });
});
