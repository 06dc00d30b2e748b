import { type CacheCandidate, type CacheEntry, type CacheStore, InMemoryCacheStore } from '@sandscope/engine/models';
import { startStore, type Store } from '@sandscope/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { type AgentService, startAgentService } from './compose.ts';
import { expectWithdrawnAnswerNotServed, WITHDRAWN_ANSWER_TOKEN } from './testing/withdrawn-answer-suite.ts';

/** The semantic cache on a server that can go away: while `down`, every call fails as a Redis client's does. */
class CacheThatGoesDown implements CacheStore {
  readonly entries = new InMemoryCacheStore();
  down = false;

  async get(key: string): Promise<CacheEntry | undefined> {
    this.#reachable();
    return this.entries.get(key);
  }

  async set(entry: CacheEntry): Promise<void> {
    this.#reachable();
    await this.entries.set(entry);
  }

  async scan(namespace: string): Promise<readonly CacheCandidate[]> {
    this.#reachable();
    return this.entries.scan(namespace);
  }

  async delete(key: string): Promise<boolean> {
    this.#reachable();
    return this.entries.delete(key);
  }

  #reachable(): void {
    if (this.down) throw new Error("Stream isn't writeable and enableOfflineQueue options is false");
  }
}

/**
 * S-263 and S-264 on one embedded database and a cache the test takes away (the Redis pair is withdrawn-answer.int.test.ts):
 * a `wrong-answer` mark whose eviction fails says so, and the answer it marked is not served when the cache is back.
 */
describe('an answer marked wrong while the cache is down is not served once it is back', () => {
  let store: Store;
  let agent: AgentService;
  const cache = new CacheThatGoesDown();
  const log: string[] = [];

  beforeAll(async () => {
    store = await startStore({ dataDir: 'memory://' });
    const parsed = loadConfig({ AGENT_TOKEN: WITHDRAWN_ANSWER_TOKEN, IP_SALT: 'salt-for-tests-0123456789' }, { requireToken: true });
    if (!parsed.ok) throw new Error(parsed.message);
    agent = await startAgentService({ config: parsed.config, store, log: (line) => log.push(line), cacheStore: cache });
  }, 120_000);

  afterAll(async () => {
    await agent?.close();
    await store?.close();
  });

  it('the mark says the answer could not be removed; asked again, it is drafted afresh, not served from the cache', async () => {
    await expectWithdrawnAnswerNotServed(agent, {
      cut: async () => {
        cache.down = true;
      },
      restore: async () => {
        cache.down = false;
      },
      holds: async (key) => (await cache.entries.get(key)) !== undefined,
    });
    // The operator's log says both: the removal that failed, and the withdrawn answer found and not served.
    expect(log.filter((line) => line.startsWith('feedback: ')).join('\n')).toMatch(/could not be removed from the semantic cache/);
    expect(log.filter((line) => line.startsWith('semantic cache: ')).join('\n')).toMatch(/was marked wrong-answer, so it is not served; removed now/);
  });
});
