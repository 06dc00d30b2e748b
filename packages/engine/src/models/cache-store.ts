/**
 * One remembered answer. Plain JSON (vectors as number arrays) so a Redis hash
 * or a Postgres `cache_entry` row can hold it without translation.
 */
export interface CacheEntry {
  /** sha-256 of namespace + normalised prompt + model-visible options: the exact-match key. */
  readonly key: string;
  /** corpusVersion + workload. Entries are only ever compared within one namespace. */
  readonly namespace: string;
  /** Embedding space of `vector`; a vector from another embedder is not comparable (ADR-0008). */
  readonly embedderId: string | null;
  /** Embedding of the question, or null when the embedder was unavailable (exact match only). */
  readonly vector: readonly number[] | null;
  /** Passage ids the answer was drafted from; a semantic hit must have all of them in front of it. */
  readonly evidenceIds: readonly string[];
  /** The model's reply. */
  readonly text: string;
  readonly createdAt: number;
}

/**
 * Where the semantic cache keeps entries. Small and async on purpose, so the
 * in-memory store and a later Redis or Postgres (pgvector) store are the same
 * three calls: exact lookup, write, and a namespace scan for vector search.
 */
export interface CacheStore {
  get(key: string): Promise<CacheEntry | undefined>;
  set(entry: CacheEntry): Promise<void>;
  /** Every entry in one namespace, for similarity search. */
  scan(namespace: string): Promise<readonly CacheEntry[]>;
}

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

  async scan(namespace: string): Promise<readonly CacheEntry[]> {
    return [...this.entries.values()].filter((e) => e.namespace === namespace);
  }

  get size(): number {
    return this.entries.size;
  }
}
