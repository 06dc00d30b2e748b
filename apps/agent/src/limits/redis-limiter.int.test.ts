import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientKeyFor } from './client-key.ts';
import { type RateLimitVariables, rateLimit } from './limit-middleware.ts';
import type { LimiterPolicy } from './limiter.ts';
import { describeLimiterContract } from './limiter.contract.ts';
import { RedisLimiter } from './redis-limiter.ts';

/**
 * Runs against a real, shared Redis named by SANDSCOPE_TEST_REDIS_URL (CI and the
 * project machines: redis://127.0.0.1:6379). Every key this run writes starts with
 * a prefix unique to the run, and is deleted afterwards.
 */
const url = process.env.SANDSCOPE_TEST_REDIS_URL;
if (!url) {
  console.log('SKIP redis-limiter.int.test.ts: SANDSCOPE_TEST_REDIS_URL is not set (e.g. redis://127.0.0.1:6379)');
}

const runPrefix = `sandscope-test:limit:${process.pid}:${randomUUID().slice(0, 8)}:`;

describe.skipIf(!url)('RedisLimiter on a shared server', () => {
  let inspector: Redis;
  beforeAll(() => {
    inspector = new Redis(url ?? '', { lazyConnect: false });
  });
  afterAll(async () => {
    const keys = await scanKeys(inspector, `${runPrefix}*`);
    if (keys.length > 0) await inspector.del(...keys);
    inspector.disconnect();
  });

  let createdPrefixes = 0;
  let lastPrefix = '';
  const create = async (policy: LimiterPolicy, keyPrefix: string): Promise<RedisLimiter> => {
    const limiter = new RedisLimiter({ ...policy, url: url ?? '', keyPrefix });
    await limiter.ready();
    return limiter;
  };

  describeLimiterContract('redis', {
    create: (policy) => {
      createdPrefixes += 1;
      lastPrefix = `${runPrefix}${createdPrefixes}:`;
      return create(policy, lastPrefix);
    },
    createReplica: (policy) => create(policy, lastPrefix),
  });

  it('persists no raw IP address in any key or value (T-9)', async () => {
    const prefix = `${runPrefix}t9:`;
    const limiter = await create({ windowMs: 60_000, maxRequests: 3, dailyTokenCeiling: 1_000 }, prefix);
    const salt = 'salt-for-t9-test-0123';
    const ip = '203.0.113.77';
    const app = new Hono<{ Variables: RateLimitVariables }>();
    // Each run reserves and settles (defect 1): settled, its hold leaves no key behind.
    app.use('*', rateLimit({ limiter, salt, clientIp: (c) => c.req.header('x-test-ip') ?? '', reserveTokens: 200 }));
    app.post('/ask', async (c) => {
      const reservation = c.get('heldTokens').take();
      if (reservation) await limiter.settleTokens(reservation, 120, Date.now());
      return c.json({ ok: true });
    });
    try {
      for (let i = 0; i < 4; i += 1) await app.request('/ask', { method: 'POST', headers: { 'x-test-ip': ip } });

      const keys = await scanKeys(inspector, `${prefix}*`);
      const digest = clientKeyFor(salt, ip);
      // The test must be able to fail: the limiter did write this client's state...
      expect(keys.sort()).toEqual([`${prefix}{${digest}}:tokens:${new Date().toISOString().slice(0, 10)}`, `${prefix}{${digest}}:window`].sort());
      // ...and nowhere in it is the address.
      const stored: string[] = [...keys];
      for (const key of keys) {
        const type = await inspector.type(key);
        if (type === 'zset') stored.push(...(await inspector.zrange(key, '0', '-1', 'WITHSCORES')));
        else if (type === 'string') stored.push((await inspector.get(key)) ?? '');
        else throw new Error(`unexpected key type ${type} for ${key}`);
      }
      const dump = stored.join('\n');
      expect(dump).toContain('360'); // 3 admitted requests × 120 tokens
      expect(dump).not.toContain(ip);
      expect(dump).not.toContain(ip.replaceAll('.', ''));
    } finally {
      await limiter.close();
    }
  });

  it('gives every key an expiry, so abandoned clients do not accumulate', async () => {
    const prefix = `${runPrefix}ttl:`;
    const limiter = await create({ windowMs: 5_000, maxRequests: 3, dailyTokenCeiling: 1_000 }, prefix);
    try {
      // An open reservation (defect 1) too: its holds set and running total expire with the day.
      await limiter.admit('ttl-client', Date.now(), 10);
      await limiter.chargeTokens('ttl-client', 5, Date.now());
      const keys = await scanKeys(inspector, `${prefix}*`);
      expect(keys.map((k) => k.slice(prefix.length).replace(/:\d{4}-\d{2}-\d{2}$/, '')).sort()).toEqual([
        '{ttl-client}:held',
        '{ttl-client}:holds',
        '{ttl-client}:tokens',
        '{ttl-client}:window',
      ]);
      for (const key of keys) {
        const ttl = await inspector.pttl(key);
        expect(ttl).toBeGreaterThan(0);
        expect(ttl).toBeLessThanOrEqual(86_400_000 + 3_600_000);
      }
    } finally {
      await limiter.close();
    }
  });
});

async function scanKeys(redis: Redis, match: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', match, 'COUNT', 500);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== '0');
  return keys;
}
