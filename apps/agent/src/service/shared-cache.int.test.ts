import { randomBytes, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import { startStore, type Store } from '@sandscope/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { type AgentService, startAgentService } from './compose.ts';
import { expectAnswerOnAIsCacheHitOnB, SHARED_CACHE_TOKEN } from './testing/shared-cache-suite.ts';

/**
 * Issue 11 section 2, on the servers replicas share: two agent services on one
 * Redis (SANDSCOPE_TEST_REDIS_URL) and two on one Postgres server
 * (SANDSCOPE_TEST_DATABASE_URL), each pair answering on B what A paid for.
 * The servers are shared, so this file uses its own key prefix and schema.
 */
const redisUrl = process.env.SANDSCOPE_TEST_REDIS_URL;
const databaseUrl = process.env.SANDSCOPE_TEST_DATABASE_URL;
if (!redisUrl) console.log('SKIP shared-cache.int.test.ts (Redis): SANDSCOPE_TEST_REDIS_URL is not set (e.g. redis://127.0.0.1:6379)');
if (!databaseUrl) console.log('SKIP shared-cache.int.test.ts (Postgres): SANDSCOPE_TEST_DATABASE_URL is not set');

function serveConfig(env: Record<string, string>) {
  const parsed = loadConfig({ AGENT_TOKEN: SHARED_CACHE_TOKEN, IP_SALT: 'salt-for-tests-0123456789', ...env }, { requireToken: true });
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.config;
}

describe.skipIf(!redisUrl)('two agent services on one Redis share the semantic cache', () => {
  const prefix = `sandscope-test:shared-cache:${process.pid}:${randomUUID().slice(0, 8)}:`;
  let store: Store;
  const agents: AgentService[] = [];

  beforeAll(async () => {
    // One embedded database for both: with REDIS_URL the cache is Redis's, which the test checks the table for.
    store = await startStore({ dataDir: 'memory://' });
    const config = serveConfig({ REDIS_URL: redisUrl!, REDIS_KEY_PREFIX: prefix });
    for (let i = 0; i < 2; i += 1) agents.push(await startAgentService({ config, store, log: () => {} }));
  }, 120_000);

  afterAll(async () => {
    for (const agent of agents) await agent.close();
    await store?.close();
    const inspector = new Redis(redisUrl!);
    let cursor = '0';
    do {
      const [next, keys] = await inspector.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) await inspector.del(...keys);
    } while (cursor !== '0');
    inspector.disconnect();
  });

  it('a question answered on A is a cache hit on B, through Redis and not the database', async () => {
    expect(agents[0]!.startup).toContain('semantic cache: Redis (shared by every replica)');
    await expectAnswerOnAIsCacheHitOnB(agents[0]!, agents[1]!);
    expect(await store.db.query('select key from cache_entry')).toEqual([]);
    const inspector = new Redis(redisUrl!);
    try {
      // Every page of the cursor: one page of a shared server's keyspace can hold none of ours (a benchmark's thousands).
      const keys: string[] = [];
      let cursor = '0';
      do {
        const [next, page] = await inspector.scan(cursor, 'MATCH', `${prefix}cache:entry:*`, 'COUNT', 1000);
        cursor = next;
        keys.push(...page);
      } while (cursor !== '0');
      expect(keys.length).toBeGreaterThan(0);
    } finally {
      inspector.disconnect();
    }
  });
});

describe.skipIf(!databaseUrl)('two agent services on one Postgres server share the semantic cache', () => {
  const schema = `sandscope_shared_cache_${process.pid}_${randomBytes(4).toString('hex')}`;
  let admin: pg.Client;
  const stores: Store[] = [];
  const agents: AgentService[] = [];

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    const config = serveConfig({ DATABASE_URL: databaseUrl! });
    // A store each — its own pool and lease — as two processes would have.
    for (let i = 0; i < 2; i += 1) {
      const store = await startStore({ url: databaseUrl!, schema });
      stores.push(store);
      agents.push(await startAgentService({ config, store, log: () => {} }));
    }
  }, 120_000);

  afterAll(async () => {
    for (const agent of agents) await agent.close();
    for (const store of stores) await store.close();
    await admin?.query(`drop schema if exists ${schema} cascade`);
    await admin?.end();
  });

  it('a question answered on A is a cache hit on B', async () => {
    expect(agents[0]!.startup).toContain('semantic cache: database (shared by every replica on this server)');
    await expectAnswerOnAIsCacheHitOnB(agents[0]!, agents[1]!);
  });
});
