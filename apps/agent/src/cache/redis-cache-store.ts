import { type CacheCandidate, type CacheEntry, type CacheStore, decodeVector, encodeVector } from '@sandscope/engine/models';
import { Redis } from 'ioredis';

export interface RedisCacheStoreOptions {
  /** `redis://` or `rediss://` URL (REDIS_URL). */
  readonly url: string;
  /**
   * Prefix for every key this store writes (default `sandscope:cache:`). Replicas
   * that share a cache use the same prefix; a test on a shared server a unique one.
   */
  readonly keyPrefix?: string;
  /** How long an entry lives unread or not (default 7 days): Redis memory is not a place to keep answers for ever. */
  readonly ttlMs?: number;
  /** Most entries one namespace keeps for similarity search, newest first (default 1000). */
  readonly scanLimit?: number;
  /** A command not answered within this many ms fails (default 500): a cache read must never hold up a run. */
  readonly commandTimeoutMs?: number;
  /** Told about connection errors (already handled: the cache degrades to a miss). Default: ignore. */
  readonly onConnectionError?: (error: Error) => void;
}

const DEFAULT_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * The semantic cache on Redis, shared by every replica pointing at the same
 * server and prefix (issue 11 section 2).
 *
 * An entry is one JSON string under `entry:<key>` (the exact match), and what
 * a similarity scan compares of it (namespace, embedder, vector as a short code,
 * evidence, time; no answer) another under `candidate:<key>`: a scan that read
 * whole entries moved a thousand answers and JSON vectors per lookup that
 * missed, a median 77 ms at 1,000 entries (S-079; `npm run bench:cache`). Each
 * namespace is a sorted set of keys by time (`ns:<namespace>`), trimmed to the
 * newest `scanLimit`. All three expire, so abandoned corpus versions leave
 * nothing behind. A key re-written under another namespace can linger in the
 * old set; `scan` checks each candidate's own.
 *
 * Like the limiter's client it fails fast rather than queue: the cache wraps
 * every model call, and `CachedModel` turns a failed read or write into a miss,
 * so a Redis outage costs money, never a run.
 */
export class RedisCacheStore implements CacheStore {
  readonly #redis: Redis;
  readonly #prefix: string;
  readonly #ttlMs: number;
  readonly #scanLimit: number;

  constructor(options: RedisCacheStoreOptions) {
    this.#prefix = options.keyPrefix ?? 'sandscope:cache:';
    this.#ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
    this.#scanLimit = options.scanLimit ?? 1000;
    this.#redis = new Redis(options.url, {
      commandTimeout: options.commandTimeoutMs ?? 500,
      connectTimeout: 1_000,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      retryStrategy: (times) => Math.min(50 * 2 ** Math.min(times, 5), 1_000),
    });
    // Without a listener ioredis prints every reconnect failure as "Unhandled error event".
    this.#redis.on('error', options.onConnectionError ?? (() => {}));
  }

  /** Resolves once connected, or rejects after `timeoutMs`; until then reads and writes fail (misses). */
  async ready(timeoutMs = 2_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.#redis.status !== 'ready') {
      if (this.#redis.status === 'end') throw new Error("the cache's Redis connection is closed");
      if (Date.now() >= deadline) throw new Error(`the cache's Redis did not become ready within ${timeoutMs} ms (status: ${this.#redis.status})`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async get(key: string): Promise<CacheEntry | undefined> {
    return parseEntry(await this.#redis.get(this.#entryKey(key)));
  }

  async set(entry: CacheEntry): Promise<void> {
    const nsKey = this.#namespaceKey(entry.namespace);
    await this.#redis
      .multi()
      .set(this.#entryKey(entry.key), JSON.stringify(entry), 'PX', this.#ttlMs)
      .set(this.#candidateKey(entry.key), JSON.stringify(candidateOf(entry)), 'PX', this.#ttlMs)
      .zadd(nsKey, entry.createdAt, entry.key)
      .zremrangebyrank(nsKey, 0, -(this.#scanLimit + 1))
      .pexpire(nsKey, this.#ttlMs)
      .exec()
      .then(failedStep);
  }

  async scan(namespace: string): Promise<readonly CacheCandidate[]> {
    const keys = await this.#redis.zrevrange(this.#namespaceKey(namespace), 0, this.#scanLimit - 1);
    if (keys.length === 0) return [];
    const values = await this.#redis.mget(...keys.map((k) => this.#candidateKey(k)));
    // An entry written before candidates were (a week's worth at most: they expire) is read whole, as it was.
    const before = keys.filter((_, i) => values[i] === null);
    const whole = before.length ? await this.#redis.mget(...before.map((k) => this.#entryKey(k))) : [];
    return [...values.map(parseCandidate), ...whole.map((raw) => parseEntry(raw) ?? null)].flatMap((c) => {
      if (!c || c.namespace !== namespace) return [];
      const { text: _, ...candidate } = c as CacheCandidate & { text?: string };
      return [candidate];
    });
  }

  /** The entry goes; its name stays in the namespace's set until trimmed or expired, and `scan` skips a name with no entry. */
  async delete(key: string): Promise<boolean> {
    return (await this.#redis.del(this.#entryKey(key), this.#candidateKey(key))) > 0;
  }

  async close(): Promise<void> {
    await this.#redis.quit().catch(() => this.#redis.disconnect());
  }

  #entryKey(key: string): string {
    return `${this.#prefix}entry:${key}`;
  }

  #candidateKey(key: string): string {
    return `${this.#prefix}candidate:${key}`;
  }

  #namespaceKey(namespace: string): string {
    return `${this.#prefix}ns:${namespace}`;
  }
}

/** A MULTI answers each step's error in place; the first one is the write's failure. */
function failedStep(results: [Error | null, unknown][] | null): void {
  if (results === null) throw new Error('the cache write was discarded by Redis');
  const failed = results.find(([error]) => error !== null);
  if (failed) throw failed[0];
}

/** What `candidate:<key>` holds: the entry without its answer, its vector as the engine's code. */
function candidateOf(entry: CacheEntry): Omit<CacheCandidate, 'vector'> & { vector: string | null } {
  const { text: _, vector, ...rest } = entry;
  return { ...rest, vector: vector ? encodeVector(vector) : null };
}

/** A candidate as stored; anything else under the key (another writer's value) is none. */
function parseCandidate(raw: string | null): CacheCandidate | null {
  if (raw === null) return null;
  try {
    const value = JSON.parse(raw) as ReturnType<typeof candidateOf>;
    if (typeof value.key !== 'string' || typeof value.namespace !== 'string' || !Array.isArray(value.evidenceIds)) return null;
    return { ...value, vector: typeof value.vector === 'string' ? decodeVector(value.vector) : null };
  } catch {
    return null;
  }
}

/** An entry as stored; anything else under the key (another writer's value) is not an answer to serve. */
function parseEntry(raw: string | null): CacheEntry | undefined {
  if (raw === null) return undefined;
  try {
    const value = JSON.parse(raw) as CacheEntry;
    return typeof value.key === 'string' && typeof value.namespace === 'string' && typeof value.text === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}
