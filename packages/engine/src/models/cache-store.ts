/**
 * One remembered answer. Plain JSON (vectors as number arrays) so a Redis hash
 * or a Postgres `cache_entry` row can hold it without translation.
 */
export interface CacheEntry {
  /** sha-256 of namespace + normalised prompt + model-visible options: the exact-match key. */
  readonly key: string;
  /** corpusVersion + workload. Entries are only ever compared within one namespace. */
  readonly namespace: string;
  /** Embedding space of `vector`; a vector from another embedder is not comparable (seed ADR-0008). */
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
 * What a similarity scan reads of an entry: everything but its answer. The answer of the one entry that matches is
 * read after, by its key. A scan that carried every answer moved a thousand of them per lookup that missed (S-079).
 */
export type CacheCandidate = Omit<CacheEntry, 'text' | 'vector'> & {
  readonly vector: ArrayLike<number> | null;
};

/**
 * Where the semantic cache keeps entries. Small and async on purpose, so the
 * in-process map (in-memory-cache-store.ts), the database's `cache_entry`
 * table (store's database-cache-store.ts) and Redis (the agent's
 * redis-cache-store.ts) are the same calls: exact lookup, write, a namespace
 * scan for vector search, and delete. All three pass cache-store.contract.ts.
 */
export interface CacheStore {
  get(key: string): Promise<CacheEntry | undefined>;
  set(entry: CacheEntry): Promise<void>;
  /** Every entry in one namespace, without its answer, for similarity search. */
  scan(namespace: string): Promise<readonly CacheCandidate[]>;
  /**
   * Forgets one entry, in `get` and in `scan`; true when there was one. A person's
   * "wrong answer" mark calls it (S-132): without it a marked answer was served to
   * everyone who asked alike until it expired.
   */
  delete(key: string): Promise<boolean>;
}

/**
 * The in-process implementation lives in in-memory-cache-store.ts (this file
 * names the contract, STYLE 2); re-exported here because tests under
 * answerability/ (owned elsewhere) import it from this path.
 */
export { InMemoryCacheStore } from './in-memory-cache-store.ts';
