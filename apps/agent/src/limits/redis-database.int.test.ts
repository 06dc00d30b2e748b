import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStore } from '@sandscope/store';
import { loadConfig } from '../config.ts';
import { startAgentService } from '../service/compose.ts';
import { UserError } from '../user-error.ts';
import { type PrivateRedisServer, freePort, redisServerAvailable, startPrivateRedis } from './private-redis-server.ts';
import { checkRedisDatabase } from './redis-database.ts';

/**
 * S-256 (a colleague's audit of the replicas, 2026-12-07): `REDIS_URL=…/99` on a Redis with 16 databases made ioredis's
 * SELECT fail on connect and carry on in database 0, with /healthz ok. Start-up now asks the server, on a throw-away
 * redis-server of this test's own.
 */
const available = redisServerAvailable();
if (!available) console.warn('redis-database.int.test.ts: skipped, no redis-server here (SANDSCOPE_REDIS_SERVER_BIN)');

describe.skipIf(!available)('the Redis database a REDIS_URL names, checked at start-up', () => {
  let server: PrivateRedisServer;
  beforeAll(async () => {
    server = await startPrivateRedis();
  });
  afterAll(async () => {
    await server?.kill();
  });

  it('a database the server does not have stops the start with one line naming REDIS_URL', async () => {
    const refused = await checkRedisDatabase(`${server.url}/99`).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(UserError);
    expect((refused as Error).message).toMatch(/^REDIS_URL names database 99, which this Redis refuses \(ERR DB index is out of range\)\. /);
  });

  it('the agent service does not start on it, and says why', async () => {
    const parsed = loadConfig({ AGENT_TOKEN: 'a'.repeat(32), IP_SALT: 'salt-for-tests-0123456789', REDIS_URL: `${server.url}/99` }, { requireToken: true });
    if (!parsed.ok) throw new Error(parsed.message);
    const store = await startStore({ dataDir: 'memory://' });
    try {
      await expect(startAgentService({ config: parsed.config, store, log: () => {} })).rejects.toThrow(/^REDIS_URL names database 99/);
    } finally {
      await store.close();
    }
  }, 60_000);

  it('a database it has, or none, passes', async () => {
    await expect(checkRedisDatabase(`${server.url}/15`)).resolves.toBeUndefined();
    await expect(checkRedisDatabase(server.url)).resolves.toBeUndefined();
  });

  it('a server that cannot be reached is left to the fail-closed start, not refused here', async () => {
    await expect(checkRedisDatabase(`redis://127.0.0.1:${await freePort()}/99`, 300)).resolves.toBeUndefined();
  });
});
