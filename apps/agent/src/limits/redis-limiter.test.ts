import { describe, expect, it } from 'vitest';
import { LimiterUnavailableError } from './limiter.ts';
import { freePort } from './private-redis-server.ts';
import { RedisLimiter } from './redis-limiter.ts';

/** Needs no Redis: it points the limiter at a port where nothing listens. */
describe('RedisLimiter with no server to reach', () => {
  it('throws LimiterUnavailableError at once instead of queueing the command', async () => {
    const port = await freePort();
    const limiter = new RedisLimiter({
      url: `redis://127.0.0.1:${port}`,
      windowMs: 1_000,
      maxRequests: 1,
      dailyTokenCeiling: 10,
    });
    try {
      for (const call of [() => limiter.admit('k', Date.now()), () => limiter.chargeTokens('k', 1, Date.now())]) {
        const started = performance.now();
        const error = await call().then(
          () => null,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(LimiterUnavailableError);
        expect(performance.now() - started).toBeLessThan(1_000);
      }
      await expect(limiter.ready(200)).rejects.toBeInstanceOf(LimiterUnavailableError);
    } finally {
      await limiter.close();
    }
    await expect(limiter.admit('k', Date.now())).rejects.toBeInstanceOf(LimiterUnavailableError);
  });
});
