import type { CacheCandidate, CacheEntry, CacheStore } from './cache-store.ts';

/**
 * The default store: a process-local map, bounded so a long-lived process cannot
 * grow it without limit (oldest written is evicted first). The default path
 * must need no Redis and no database (STACK.md).
 */
export class InMemoryCacheStore implements CacheStore {
  private readonly entries = new Map<string, CacheEntry>();

  constructor(private readonly maxEntries = 10_000) {}

  async get(key: string): Promise<CacheEntry | undefined> {
    return this.entries.get(key);
  }

  async set(entry: CacheEntry): Promise<void> {
    this.entries.delete(entry.key);
    this.entries.set(entry.key, entry);
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }

  async scan(namespace: string): Promise<readonly CacheCandidate[]> {
    return [...this.entries.values()].filter((e) => e.namespace === namespace).map(({ text: _, ...candidate }) => candidate);
  }

  async delete(key: string): Promise<boolean> {
    return this.entries.delete(key);
  }

  get size(): number {
    return this.entries.size;
  }
}
