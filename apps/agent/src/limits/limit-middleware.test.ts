import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { InProcessLimiter } from './in-process-limiter.ts';
import { type RateLimitVariables, rateLimit } from './limit-middleware.ts';
import { type Admission, type RateLimiter, type TokenReservation, LimiterUnavailableError } from './limiter.ts';

const SALT = 'test-salt-0123456789';

function appWith(limiter: RateLimiter, now: () => number = () => Date.UTC(2026, 2, 14, 12)) {
  const app = new Hono<{ Variables: RateLimitVariables }>();
  app.use('*', rateLimit({ limiter, salt: SALT, now, clientIp: (c) => c.req.header('x-test-ip') ?? '' }));
  app.get('/ask', (c) => c.json({ ok: true, clientKey: c.get('clientKey') }));
  app.onError((_error, c) => c.json({ error: { code: 'internal', message: 'Internal error.' } }, 500));
  return app;
}

const from = (ip: string) => ({ headers: { 'x-test-ip': ip } });

/** A limiter whose store is down — what the Redis limiter becomes in an outage. */
class UnreachableLimiter implements RateLimiter {
  async admit(): Promise<Admission> {
    throw new LimiterUnavailableError('connect ECONNREFUSED 127.0.0.1:1');
  }
  async chargeTokens(): Promise<Admission> {
    throw new LimiterUnavailableError('connect ECONNREFUSED 127.0.0.1:1');
  }
  async settleTokens(): Promise<Admission> {
    throw new LimiterUnavailableError('connect ECONNREFUSED 127.0.0.1:1');
  }
  async close(): Promise<void> {}
}

describe('rateLimit middleware', () => {
  it('answers 200 while under the limit, then exactly 429 rate_limited with Retry-After', async () => {
    const app = appWith(new InProcessLimiter({ windowMs: 30_000, maxRequests: 2, dailyTokenCeiling: 100 }));
    expect((await app.request('/ask', from('198.51.100.4'))).status).toBe(200);
    expect((await app.request('/ask', from('198.51.100.4'))).status).toBe(200);
    const refused = await app.request('/ask', from('198.51.100.4'));
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('30');
    expect(await refused.json()).toEqual({
      error: {
        code: 'rate_limited',
        message: 'Too many requests from this client; wait for the Retry-After interval and try again.',
      },
    });
    // Another address is a different client.
    expect((await app.request('/ask', from('198.51.100.5'))).status).toBe(200);
  });

  it('answers 429 daily_tokens_exhausted once the client has spent its tokens', async () => {
    const limiter = new InProcessLimiter({ windowMs: 1_000, maxRequests: 100, dailyTokenCeiling: 10 });
    const app = appWith(limiter);
    const first = await app.request('/ask', from('198.51.100.9'));
    const { clientKey } = (await first.json()) as { clientKey: string };
    await limiter.chargeTokens(clientKey, 10, Date.UTC(2026, 2, 14, 12));
    const refused = await app.request('/ask', from('198.51.100.9'));
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe(String(12 * 3600));
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('daily_tokens_exhausted');
  });

  it('hands handlers and the limiter only the salted digest, never the address', async () => {
    const seen: string[] = [];
    const inner = new InProcessLimiter({ windowMs: 1_000, maxRequests: 5, dailyTokenCeiling: 10 });
    const spy: RateLimiter = {
      admit: (key, now, reserve) => (seen.push(key), inner.admit(key, now, reserve)),
      chargeTokens: (key, tokens, now) => inner.chargeTokens(key, tokens, now),
      settleTokens: (reservation, tokens, now) => inner.settleTokens(reservation, tokens, now),
      close: () => inner.close(),
    };
    const res = await appWith(spy).request('/ask', from('192.0.2.200'));
    const body = (await res.json()) as { clientKey: string };
    expect(seen).toEqual([body.clientKey]);
    expect(body.clientKey).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(seen)).not.toContain('192.0.2.200');
  });

  it("reserves the run's tokens at admission and hands them to the handler once; a reservation nobody takes is released (defect 1)", async () => {
    const now = () => Date.UTC(2026, 2, 14, 12);
    const limiter = new InProcessLimiter({ windowMs: 60_000, maxRequests: 100, dailyTokenCeiling: 1_000 });
    const app = new Hono<{ Variables: RateLimitVariables }>();
    app.use('*', rateLimit({ limiter, salt: SALT, now, clientIp: (c) => c.req.header('x-test-ip') ?? '', reserveTokens: 1_000 }));
    let kept: TokenReservation | undefined;
    app.post('/run', (c) => {
      kept = c.get('heldTokens').take();
      return c.json({ second: c.get('heldTokens').take() ?? null, clientKey: c.get('clientKey') });
    });
    app.post('/invalid', (c) => c.json({ error: 'bad body' }, 400));
    app.post('/throws', () => {
      throw new TypeError('bug');
    });
    app.onError((_error, c) => c.json({ error: { code: 'internal' } }, 500));

    const ran = await app.request('/run', { method: 'POST', ...from('198.51.100.20') });
    const body = (await ran.json()) as { second: unknown; clientKey: string };
    expect(kept).toMatchObject({ clientKey: body.clientKey, tokens: 1_000 });
    expect(body.second).toBeNull();
    // The whole ceiling is held: the next run's reservation is refused until this one settles.
    const held = await app.request('/run', { method: 'POST', ...from('198.51.100.20') });
    expect(held.status).toBe(429);
    expect(held.headers.get('retry-after')).toBe('1');
    expect(((await held.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
    await limiter.settleTokens(kept!, 100, now());

    // Refused by validation, or a bug: nothing ran, the reservation is released, the next run is admitted.
    expect((await app.request('/invalid', { method: 'POST', ...from('198.51.100.20') })).status).toBe(400);
    expect((await app.request('/throws', { method: 'POST', ...from('198.51.100.20') })).status).toBe(500);
    expect(await limiter.chargeTokens(body.clientKey, 0, now())).toEqual({ allowed: true, remaining: 900 });
    expect((await app.request('/run', { method: 'POST', ...from('198.51.100.20') })).status).toBe(200);
  });

  it('fails closed: an unreachable store answers exactly 503 limiter_unavailable, never 200', async () => {
    const res = await appWith(new UnreachableLimiter()).request('/ask', from('198.51.100.4'));
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBeNull();
    expect(await res.json()).toEqual({
      error: {
        code: 'limiter_unavailable',
        message: 'Rate limiter store is unreachable; requests are refused until it recovers (fail closed).',
      },
    });
  });

  it('tells the operator why it refused 503, once per refusal', async () => {
    const told: string[] = [];
    const app = new Hono<{ Variables: RateLimitVariables }>();
    app.use('*', rateLimit({ limiter: new UnreachableLimiter(), salt: SALT, clientIp: () => '198.51.100.4', onUnavailable: (e) => told.push(e.message) }));
    app.get('/ask', (c) => c.json({ ok: true }));
    expect((await app.request('/ask')).status).toBe(503);
    expect(told).toEqual(['connect ECONNREFUSED 127.0.0.1:1']);
  });

  it('lets an unexpected limiter error reach onError instead of admitting', async () => {
    const broken: RateLimiter = {
      admit: async () => {
        throw new TypeError('bug');
      },
      chargeTokens: async () => {
        throw new TypeError('bug');
      },
      settleTokens: async () => {
        throw new TypeError('bug');
      },
      close: async () => {},
    };
    const res = await appWith(broken).request('/ask', from('198.51.100.4'));
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ error: { code: 'internal', message: 'Internal error.' } });
  });
});
