import { Hono } from 'hono';
import { afterEach, describe, expect, it } from 'vitest';
import { type RateLimitVariables, rateLimit } from './limit-middleware.ts';
import { type PrivateRedisServer, REDIS_SERVER_BIN, redisServerAvailable, startPrivateRedis } from './private-redis-server.ts';
import { LimiterUnavailableError } from './limiter.ts';
import { RedisLimiter } from './redis-limiter.ts';

/**
 * FAIL CLOSED, end to end (seed §5, T-1, D-013). Each test starts its OWN
 * redis-server on a free port and kills only that one — never the shared server.
 *
 * D-013 was a rate-limit test that passed while the service was down because it
 * accepted any status ≥ 400. So every assertion here is an exact status AND an
 * exact body code: 200 while up, 429 `rate_limited` over the limit, 503
 * `limiter_unavailable` while the store is gone — three answers that cannot be
 * mistaken for one another.
 */
const available = redisServerAvailable();
if (!available) {
  console.log(`SKIP redis-outage.int.test.ts: no redis-server binary at ${REDIS_SERVER_BIN} (set SANDSCOPE_REDIS_SERVER_BIN)`);
}

const UNAVAILABLE_BODY = {
  error: {
    code: 'limiter_unavailable',
    message: 'Rate limiter store is unreachable; requests are refused until it recovers (fail closed).',
  },
};

describe.skipIf(!available)('Redis limiter outage (private redis-server)', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function setUp(commandTimeoutMs = 300) {
    const server: PrivateRedisServer = await startPrivateRedis();
    cleanups.push(() => server.kill());
    const limiter = new RedisLimiter({
      url: server.url,
      keyPrefix: 'outage-test:',
      windowMs: 60_000,
      maxRequests: 2,
      dailyTokenCeiling: 1_000,
      commandTimeoutMs,
    });
    cleanups.push(() => limiter.close());
    await limiter.ready(5_000);
    const app = new Hono<{ Variables: RateLimitVariables }>();
    app.use('*', rateLimit({ limiter, salt: 'outage-salt-0123456789', clientIp: (c) => c.req.header('x-test-ip') ?? '' }));
    app.get('/ask', (c) => c.json({ ok: true }));
    const ask = async (ip: string) => {
      const res = await app.request('/ask', { headers: { 'x-test-ip': ip } });
      return { status: res.status, body: (await res.json()) as unknown, retryAfter: res.headers.get('retry-after') };
    };
    return { server, ask };
  }

  it('answers 200, then 429 rate_limited while up, and exactly 503 limiter_unavailable once the store is killed', async () => {
    const { server, ask } = await setUp();

    expect(await ask('198.51.100.1')).toEqual({ status: 200, body: { ok: true }, retryAfter: null });
    expect(await ask('198.51.100.1')).toEqual({ status: 200, body: { ok: true }, retryAfter: null });
    const limited = await ask('198.51.100.1');
    expect(limited.status).toBe(429);
    expect(limited.retryAfter).toBe('60');
    expect(limited.body).toMatchObject({ error: { code: 'rate_limited' } });

    await server.kill();

    // A client the limiter has never seen — admitting-on-error would answer 200 here.
    for (const ip of ['198.51.100.2', '198.51.100.1', '198.51.100.3']) {
      const started = performance.now();
      const res = await ask(ip);
      expect(res).toEqual({ status: 503, body: UNAVAILABLE_BODY, retryAfter: null });
      expect(performance.now() - started).toBeLessThan(1_000); // fails fast, does not queue
    }
  });

  it('refuses with 503 when the store hangs (commandTimeout), and admits again once it answers', async () => {
    const { server, ask } = await setUp(250);
    expect((await ask('198.51.100.7')).status).toBe(200);

    server.signal('SIGSTOP'); // the socket stays open; the server just never answers
    try {
      const started = performance.now();
      expect(await ask('198.51.100.8')).toEqual({ status: 503, body: UNAVAILABLE_BODY, retryAfter: null });
      const elapsed = performance.now() - started;
      expect(elapsed).toBeGreaterThanOrEqual(200);
      expect(elapsed).toBeLessThan(2_000);
    } finally {
      server.signal('SIGCONT');
    }

    // Recovery needs no restart of ours: the same client is admitted once Redis answers.
    const deadline = Date.now() + 10_000;
    let status = 0;
    while (Date.now() < deadline) {
      status = (await ask('198.51.100.9')).status;
      if (status === 200) break;
      expect(status).toBe(503);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe(200);
  });

  it('a check that timed out but ran on the server late leaves no window slot and no token hold behind (defect 4)', async () => {
    const server = await startPrivateRedis();
    cleanups.push(() => server.kill());
    const limiter = new RedisLimiter({
      url: server.url,
      keyPrefix: 'outage-test:late-admit:',
      windowMs: 60_000,
      maxRequests: 2,
      dailyTokenCeiling: 8_000,
      commandTimeoutMs: 200,
    });
    cleanups.push(() => limiter.close());
    await limiter.ready(5_000);

    // A slow server: the admission times out (503 to the client), then runs once the server answers again.
    server.signal('SIGSTOP');
    try {
      await expect(limiter.admit('client', Date.now(), 8_000)).rejects.toThrow(LimiterUnavailableError);
    } finally {
      server.signal('SIGCONT');
    }

    // Had the late admission kept its slot and its 8,000-token hold, this would be refused on both counts.
    expect(await limiter.admit('client', Date.now(), 8_000)).toMatchObject({ allowed: true, remaining: 1 });
  });

  it('admits again after the store is restarted on the same port', async () => {
    const { server, ask } = await setUp();
    expect((await ask('198.51.100.20')).status).toBe(200);
    await server.kill();
    expect(await ask('198.51.100.20')).toEqual({ status: 503, body: UNAVAILABLE_BODY, retryAfter: null });

    const revived = await startPrivateRedis(server.port);
    cleanups.push(() => revived.kill());
    const deadline = Date.now() + 10_000;
    let status = 0;
    while (Date.now() < deadline) {
      status = (await ask('198.51.100.20')).status;
      if (status === 200) break;
      expect(status).toBe(503);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe(200);
  });
});
