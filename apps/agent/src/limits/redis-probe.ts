import { Redis } from 'ioredis';

/**
 * A start-up question's own connection to the Redis in REDIS_URL, on database 0: it connects only when asked, tries
 * once, queues nothing and never retries, so a check (S-256's database, S-275's password) says what the server answers
 * and a server that cannot be reached is left to the fail-closed start. The caller disconnects it.
 */
export function startupProbe(url: string, timeoutMs: number): Redis {
  const at = new URL(url);
  // The database is checkRedisDatabase's to ask: a SELECT the server refuses must not hide another check's answer.
  at.pathname = '/0';
  return new Redis(at.toString(), {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
}
