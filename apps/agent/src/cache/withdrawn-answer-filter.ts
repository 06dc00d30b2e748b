import type { CacheCandidate, CacheEntry, CacheStore } from '@sandscope/engine/models';

/** Asks the database every replica shares whether a `wrong-answer` mark withdrew this entry (the store's `isCachedAnswerWithdrawn`). */
export type WithdrawnCheck = (key: string, createdAt: number) => Promise<boolean>;

/**
 * The semantic cache as the agent serves from it: an entry a person's `wrong-answer` mark withdrew is never a hit,
 * whether or not the mark could evict it. S-263: eviction alone (S-132) depended on the cache being reachable when the
 * person marked; with Redis down the mark answered 200, the eviction failed in a log line, and once Redis was back the
 * answer marked wrong was served to everyone who asked alike until it expired. The withdrawal is kept with the mark, in
 * the database (migration 0029), and checked here on the way out.
 *
 * Only `get` returns answers (a similarity scan carries none, and its match is read by key), so only a `get` that finds
 * an entry asks the database: one primary-key lookup per hit, nothing on a miss. A withdrawn entry found is deleted, as
 * the mark's eviction would have, so it is not found again; if that fails too it is still not served. A database that
 * cannot answer fails the read, which the cached model turns into a miss: an answer it cannot check is not served.
 */
export class WithdrawnAnswerFilter implements CacheStore {
  readonly #inner: CacheStore;
  readonly #withdrawn: WithdrawnCheck;
  readonly #log: (line: string) => void;

  constructor(inner: CacheStore, withdrawn: WithdrawnCheck, log: (line: string) => void = () => {}) {
    this.#inner = inner;
    this.#withdrawn = withdrawn;
    this.#log = log;
  }

  async get(key: string): Promise<CacheEntry | undefined> {
    const entry = await this.#inner.get(key);
    if (!entry || !(await this.#withdrawn(key, entry.createdAt))) return entry;
    const removed = await this.#inner.delete(key).then(
      () => 'removed now',
      (error: unknown) => `still in the cache (${error instanceof Error ? error.message : String(error)})`,
    );
    this.#log(`semantic cache: the answer cached under ${key.slice(0, 12)}… was marked wrong-answer, so it is not served; ${removed}`);
    return undefined;
  }

  set(entry: CacheEntry): Promise<void> {
    return this.#inner.set(entry);
  }

  scan(namespace: string): Promise<readonly CacheCandidate[]> {
    return this.#inner.scan(namespace);
  }

  delete(key: string): Promise<boolean> {
    return this.#inner.delete(key);
  }
}
