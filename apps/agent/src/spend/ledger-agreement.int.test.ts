import { randomBytes } from 'node:crypto';
import { claimSpendLedgerPlace, type SpendLedgerPlace, startStore, type Store } from '@sandscope/store';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { type AgentService, startAgentService } from '../service/compose.ts';
import { redisDatabaseOf } from '../limits/redis-database.ts';

/**
 * S-274 (a colleague's audit of the replicas): replicas on one Postgres, some with REDIS_URL and some without, each
 * booked the daily spend in its own ledger, and the deployment spent $1.20 against a $1 ceiling. As an operator runs
 * them: agent services on one Postgres server (a schema of this file's own), each with its own store — its own pool
 * and run-ownership lease, as separate processes have — and one Redis (keys under a prefix of this run's own).
 */
const databaseUrl = process.env.SANDSCOPE_TEST_DATABASE_URL;
const redisUrl = process.env.SANDSCOPE_TEST_REDIS_URL;
const ready = Boolean(databaseUrl && redisUrl);
if (!ready)
  console.log('SKIP ledger-agreement.int.test.ts: set SANDSCOPE_TEST_DATABASE_URL and SANDSCOPE_TEST_REDIS_URL to start replicas on one Postgres and Redis');

const TOKEN = 'test-token-0123456789abcdef0123456789';

describe.skipIf(!ready)('replicas on one database agree on one daily spend ledger (S-274)', () => {
  const schema = `sandscope_s274_${process.pid}_${randomBytes(4).toString('hex')}`;
  const prefix = `sandscope-test:s274:${process.pid}:${randomBytes(4).toString('hex')}:`;
  let admin: pg.Client;
  const stores: Store[] = [];
  const agents: AgentService[] = [];

  function config(replica: string, env: Record<string, string>) {
    const parsed = loadConfig(
      { AGENT_TOKEN: TOKEN, IP_SALT: 'salt-for-tests-0123456789', DATABASE_URL: databaseUrl!, SANDSCOPE_REPLICA: replica, ...env },
      { requireToken: true },
    );
    if (!parsed.ok) throw new Error(parsed.message);
    return parsed.config;
  }
  const withRedis = (replica: string) => config(replica, { REDIS_URL: redisUrl!, REDIS_KEY_PREFIX: prefix });
  const withoutRedis = (replica: string) => config(replica, {});

  /** A replica: its own store (pool and lease) on the shared schema. Resolves to the agent, or rejects as its start does. */
  async function replica(serve: ReturnType<typeof config>): Promise<{ agent: AgentService; store: Store }> {
    const store = await startStore({ url: databaseUrl!, schema });
    stores.push(store);
    const agent = await startAgentService({ config: serve, store, log: () => {} });
    agents.push(agent);
    return { agent, store };
  }

  async function stop(r: { agent: AgentService; store: Store }): Promise<void> {
    await r.agent.close();
    await r.store.close();
  }

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
  });

  afterAll(async () => {
    for (const agent of agents) await agent.close().catch(() => {});
    for (const store of stores) await store.close().catch(() => {});
    await admin?.query(`drop schema if exists ${schema} cascade`);
    await admin?.end();
    const inspector = new Redis(redisUrl!);
    let cursor = '0';
    do {
      const [next, keys] = await inspector.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await inspector.del(...keys);
    } while (cursor !== '0');
    inspector.disconnect();
  });

  it('a replica without REDIS_URL beside live ones with it stops with one line naming them and what to set; one that agrees starts; once they stop, the ledger moves', async () => {
    const first = await replica(withRedis('agent-a'));
    const second = await replica(withRedis('agent-b'));
    const { hostname, port } = new URL(redisUrl!);
    const at = `${hostname}:${port || '6379'}/${redisDatabaseOf(redisUrl!)}`;

    const refused = await replica(withoutRedis('agent-c')).catch((error: unknown) => error as Error);
    expect(refused).toBeInstanceOf(Error);
    expect((refused as Error).name).toBe('UserError');
    expect((refused as Error).message).toBe(
      `this replica would book the daily spend (DAILY_SPEND_CEILING_USD) in the database (no REDIS_URL), but running replicas on this database book it elsewhere: ` +
        `agent-a, agent-b in Redis at ${at} (REDIS_KEY_PREFIX "${prefix}"). Two ledgers would each allow the whole ceiling. ` +
        `Set REDIS_URL to that Redis server and database, and REDIS_KEY_PREFIX to "${prefix}", as they have them; ` +
        'or, to move the ledger on purpose, stop those replicas first (a stopped replica counts no more).',
    );
    // Another key prefix on the same Redis is another ledger as well.
    await expect(replica(config('agent-d', { REDIS_URL: redisUrl!, REDIS_KEY_PREFIX: `${prefix}other:` }))).rejects.toThrow(
      /^this replica would book the daily spend \(DAILY_SPEND_CEILING_USD\) in Redis at .* \(REDIS_KEY_PREFIX ".*other:"\), but running replicas/,
    );

    // The refused replicas recorded nothing; the moved deployment starts once the Redis replicas are stopped.
    await stop(first);
    await stop(second);
    const moved = await replica(withoutRedis('agent-c'));
    expect(moved.agent.startup.join('\n')).toContain('booked in database (shared by every replica on this server)');
    await expect(replica(withRedis('agent-e'))).rejects.toThrow(
      /^this replica would book .* but running replicas on this database book it elsewhere: agent-c in the database \(no REDIS_URL\)\. .* Unset REDIS_URL on this replica, as it is on them;/,
    );
    await stop(moved);
  }, 180_000);

  it('two replicas claiming different ledgers at the same moment: exactly one is recorded', async () => {
    const places: SpendLedgerPlace[] = [{ kind: 'database' }, { kind: 'redis', at: 'redis:6379/0', keyPrefix: 'sandscope:' }];
    for (let round = 0; round < 10; round++) {
      const racers = await Promise.all([0, 1].map(() => startStore({ url: databaseUrl!, schema })));
      stores.push(...racers);
      // An empty table, as at a deployment's first start: a stopped replica's row, deleted by both claims, would make
      // the second wait for the first and hide the race.
      await admin.query(`delete from ${schema}.spend_ledger_replica`);
      const answers = await Promise.all(
        racers.map((store, i) => claimSpendLedgerPlace(store.db, { ownerId: store.ownerId, replica: `racer-${i}`, place: places[i]! })),
      );
      expect(answers.filter((elsewhere) => elsewhere.length === 0)).toHaveLength(1);
      for (const store of racers) await store.close();
    }
  }, 120_000);
});
