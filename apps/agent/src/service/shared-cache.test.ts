import { startStore, type Store } from '@sandscope/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { type AgentService, startAgentService } from './compose.ts';
import { expectAnswerOnAIsCacheHitOnB, SHARED_CACHE_TOKEN } from './testing/shared-cache-suite.ts';

/**
 * Two agent services on one database and no Redis: the semantic cache is the
 * database's, so what A paid for is a hit on B. (The Redis and Postgres-server
 * pairs are in shared-cache.int.test.ts.)
 */
describe('two agent services on one database share the semantic cache', () => {
  let store: Store;
  const agents: AgentService[] = [];

  beforeAll(async () => {
    store = await startStore({ dataDir: 'memory://' });
    const parsed = loadConfig({ AGENT_TOKEN: SHARED_CACHE_TOKEN, IP_SALT: 'salt-for-tests-0123456789' }, { requireToken: true });
    if (!parsed.ok) throw new Error(parsed.message);
    for (let i = 0; i < 2; i += 1) agents.push(await startAgentService({ config: parsed.config, store, log: () => {} }));
  }, 120_000);

  afterAll(async () => {
    for (const agent of agents) await agent.close();
    await store?.close();
  });

  it('says at start-up where the cache lives', () => {
    expect(agents[0]!.startup).toContain('semantic cache: database (embedded PGlite: this process only, kept across restarts)');
  });

  it('a question answered on A is a cache hit on B', async () => {
    await expectAnswerOnAIsCacheHitOnB(agents[0]!, agents[1]!);
  });
});
