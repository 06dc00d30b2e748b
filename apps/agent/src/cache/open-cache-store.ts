import { type CacheStore, InMemoryCacheStore } from '@sandscope/engine/models';
import { DatabaseCacheStore, isCachedAnswerWithdrawn, type Store } from '@sandscope/store';
import type { AgentConfig } from '../config.ts';
import { RedisCacheStore } from './redis-cache-store.ts';
import { WithdrawnAnswerFilter } from './withdrawn-answer-filter.ts';

export interface OpenedCacheStore {
  readonly store: CacheStore;
  /** What an operator reads at start-up: where the entries are and who shares them. */
  readonly description: string;
  close(): Promise<void>;
}

/**
 * Where the semantic cache keeps its answers (issue 11 section 2): REDIS_URL →
 * Redis; else the store's database (a Postgres server shared by every replica,
 * or this process's PGlite); an injected store (a test's in-memory or failing
 * one) when a caller hands one in. An answer paid for on one replica is then a
 * hit on the others.
 *
 * One function, so the service that serves answers and the CLI's `feedback`
 * that evicts a marked one (S-132) open the same cache from the same settings.
 * A Redis that is down does not stop either: reads miss, and the caller is told.
 *
 * Whichever it is, an answer a `wrong-answer` mark withdrew is not served from it (S-263; withdrawn-answer-filter.ts),
 * checked against the marks in the store's database, the one every replica shares.
 */
export async function openCacheStore(
  config: Pick<AgentConfig, 'redisUrl' | 'redisKeyPrefix'>,
  store: Store,
  options: { readonly injected?: CacheStore; readonly log?: (line: string) => void } = {},
): Promise<OpenedCacheStore> {
  const log = options.log ?? (() => {});
  const opened = await openUnfiltered(config, store, options.injected, log);
  return { ...opened, store: new WithdrawnAnswerFilter(opened.store, (key, createdAt) => isCachedAnswerWithdrawn(store.db, key, createdAt), log) };
}

async function openUnfiltered(
  config: Pick<AgentConfig, 'redisUrl' | 'redisKeyPrefix'>,
  store: Store,
  injected: CacheStore | undefined,
  log: (line: string) => void,
): Promise<OpenedCacheStore> {
  const none = async () => {};
  if (injected) {
    const description = injected instanceof InMemoryCacheStore ? 'in memory (this process only)' : 'supplied by the caller';
    return { store: injected, description, close: none };
  }
  if (config.redisUrl) {
    let reported = false;
    const redis = new RedisCacheStore({
      url: config.redisUrl,
      keyPrefix: `${config.redisKeyPrefix}cache:`,
      onConnectionError: (error) => {
        if (reported) return;
        reported = true;
        log(`semantic cache: Redis connection failed (${error.message}); the cache misses until it is reachable`);
      },
    });
    let description = 'Redis (shared by every replica)';
    await redis.ready().catch((error: unknown) => {
      description += `; ${error instanceof Error ? error.message : String(error)}; the cache misses until Redis is reachable`;
    });
    return { store: redis, description, close: () => redis.close() };
  }
  const description =
    store.db.dialect === 'postgres'
      ? 'database (shared by every replica on this server)'
      : 'database (embedded PGlite: this process only, kept across restarts)';
  return { store: new DatabaseCacheStore(store.db), description, close: none };
}
