import { createServer } from 'node:net';
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

/** Needs no Redis: a server that answers every command `+OK`, as a connection whose replies fell out of step may. */
describe('RedisLimiter given a reply it cannot read', () => {
  it('refuses as an unavailable store (503, fail closed), not as a bug (500)', async () => {
    // INFO (the client's ready check) gets an empty reply; every other command gets `+OK`.
    const server = createServer((socket) =>
      socket.on('data', (d) => {
        // One reply per command: the client pipelines several into one packet.
        for (const command of String(d)
          .split(/(?=^\*\d+\r$)/m)
          .filter((c) => c.startsWith('*')))
          socket.write(/\bINFO\b/i.test(command) ? '$0\r\n\r\n' : '+OK\r\n');
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const limiter = new RedisLimiter({ url: `redis://127.0.0.1:${port}`, windowMs: 1_000, maxRequests: 1, dailyTokenCeiling: 10 });
    try {
      await limiter.ready(2_000);
      const error = await limiter.admit('k', Date.now()).then(
        () => null,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(LimiterUnavailableError);
      expect((error as Error).message).toMatch(/a reply the limiter cannot read \("OK"\)/);
    } finally {
      await limiter.close();
      server.close();
    }
  });
});
