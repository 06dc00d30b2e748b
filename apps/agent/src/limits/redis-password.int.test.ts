import { startStore, type Store } from '@sandscope/store';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { type AgentService, startAgentService } from '../service/compose.ts';
import { UserError } from '../user-error.ts';
import { type PrivateRedisServer, freePort, redisServerAvailable, startPrivateRedis } from './private-redis-server.ts';
import { checkRedisPassword } from './redis-password.ts';

/**
 * S-275 (a colleague's audit of the replicas): with a wrong password in REDIS_URL, /healthz said Redis was
 * unreachable and the replica retried for ever, as for an outage. On a throw-away redis-server of this test's own,
 * given a password with CONFIG SET (the shared server on 6379 is not touched).
 */
const available = redisServerAvailable();
if (!available) console.warn('redis-password.int.test.ts: skipped, no redis-server here (SANDSCOPE_REDIS_SERVER_BIN)');

const PASSWORD = 'right-password-0123';
const TOKEN = 'a'.repeat(32);

function configWith(redisUrl: string) {
  const parsed = loadConfig(
    { AGENT_TOKEN: TOKEN, IP_SALT: 'salt-for-tests-0123456789', REDIS_URL: redisUrl, REDIS_KEY_PREFIX: 's275:' },
    { requireToken: true },
  );
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.config;
}

describe.skipIf(!available)('a password Redis refuses (S-275)', () => {
  let server: PrivateRedisServer;
  let admin: Redis;
  let store: Store;
  const withPassword = (password: string) => `redis://:${password}@127.0.0.1:${server.port}`;

  beforeAll(async () => {
    server = await startPrivateRedis();
    admin = new Redis(server.url, { maxRetriesPerRequest: 0 });
    await admin.config('SET', 'requirepass', PASSWORD);
    store = await startStore({ dataDir: 'memory://' });
  }, 60_000);
  afterAll(async () => {
    admin?.disconnect();
    await server?.kill();
    await store?.close();
  });

  it('a wrong password stops the start with one line saying so, never the password', async () => {
    const refused = await checkRedisPassword(withPassword('wrong-password')).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(UserError);
    const message = (refused as Error).message;
    expect(message).toMatch(/^Redis refused the password in REDIS_URL \(WRONGPASS: .*\)\. Set the right one in REDIS_URL .* and start again\.$/);
    expect(message).not.toContain('wrong-password');
    expect(message).not.toContain('\n');
  });

  it('no password, where the Redis requires one, is said as that', async () => {
    await expect(checkRedisPassword(server.url)).rejects.toThrow(
      /^Redis refused the password in REDIS_URL: it gives none, and this Redis requires one \(NOAUTH\)\. Set the right one/,
    );
  });

  it('the right password passes, and an unreachable server is left to the fail-closed start', async () => {
    await expect(checkRedisPassword(`${withPassword(PASSWORD)}/3`)).resolves.toBeUndefined();
    await expect(checkRedisPassword(`redis://:x@127.0.0.1:${await freePort()}`, 300)).resolves.toBeUndefined();
  });

  it('the agent service does not start on a wrong password, and says why', async () => {
    await expect(startAgentService({ config: configWith(withPassword('wrong-password')), store, log: () => {} })).rejects.toThrow(
      /^Redis refused the password in REDIS_URL \(WRONGPASS/,
    );
  }, 60_000);

  it('a password refused later (changed on the server) is said in words by /healthz, not as an outage', async () => {
    let agent: AgentService | undefined;
    try {
      agent = await startAgentService({ config: configWith(withPassword(PASSWORD)), store, log: () => {} });
      expect((await agent.health()).parts.limiter.status).toBe('ok');
      // The server's password changes, and its clients must connect again: every reconnect is refused.
      await admin.config('SET', 'requirepass', 'rotated-password-456');
      await admin.call('CLIENT', 'KILL', 'TYPE', 'normal');
      let parts = (await agent.health()).parts;
      // Each client learns of the refusal when its own reconnect is refused: wait for both (the limiter once lagged the ledger in CI).
      const waiting = () => parts.spendLedger.detail.includes('unreachable') || parts.limiter.detail.includes('unreachable');
      for (let tries = 0; tries < 200 && waiting(); tries++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        parts = (await agent.health()).parts;
      }
      expect(parts.limiter).toEqual({
        status: 'degraded',
        detail: expect.stringMatching(
          /^redis: Redis refused the password in REDIS_URL \(WRONGPASS.*\); set the right one and restart this replica — runs are refused \(503 limiter_unavailable\) until then$/,
        ),
      });
      expect(parts.spendLedger).toEqual({
        status: 'degraded',
        detail: expect.stringMatching(
          /^Redis \(shared by every replica\): Redis refused the password in REDIS_URL \(WRONGPASS.*\); set the right one and restart this replica/,
        ),
      });
      expect(JSON.stringify(parts)).not.toContain('password-');
    } finally {
      await agent?.close();
      await admin.config('SET', 'requirepass', PASSWORD);
    }
  }, 60_000);
});
