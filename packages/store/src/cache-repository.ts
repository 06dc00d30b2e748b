import type { Queryable } from './database.ts';
import { floats, iso, json } from './values.ts';

export interface CacheEntryInput {
  /** Exact-match key (a hash of namespace and prompt). */
  readonly key: string;
  /**
   * Entries are compared for similarity only within one namespace; the cache
   * composes it from embedder id, corpus version and workload, so a vector
   * from another embedding space or an answer from another corpus never matches.
   */
  readonly namespace: string;
  readonly corpusVersion: string;
  readonly workload: string;
  readonly promptHash: string;
  readonly embedding?: ArrayLike<number> | null;
  readonly response: unknown;
}

export interface CacheEntry {
  readonly key: string;
  readonly namespace: string;
  readonly corpusVersion: string;
  readonly workload: string;
  readonly promptHash: string;
  readonly embedding: number[] | null;
  readonly response: unknown;
  readonly createdAt: string;
}

interface CacheRow {
  key: string;
  namespace: string;
  corpus_version: string;
  workload: string;
  prompt_hash: string;
  embedding: number[] | null;
  response: unknown;
  created_at: Date;
}

const COLUMNS = 'key, namespace, corpus_version, workload, prompt_hash, embedding, response, created_at';

const toEntry = (r: CacheRow): CacheEntry => ({
  key: r.key,
  namespace: r.namespace,
  corpusVersion: r.corpus_version,
  workload: r.workload,
  promptHash: r.prompt_hash,
  embedding: r.embedding,
  response: r.response,
  createdAt: iso(r.created_at),
});

export async function getCacheEntry(db: Queryable, key: string): Promise<CacheEntry | null> {
  const [row] = await db.query<CacheRow>(`select ${COLUMNS} from cache_entry where key = $1`, [key]);
  return row ? toEntry(row) : null;
}

/** Inserts or replaces the entry under its key. */
export async function setCacheEntry(db: Queryable, entry: CacheEntryInput): Promise<CacheEntry> {
  const [row] = await db.query<CacheRow>(
    `insert into cache_entry (key, namespace, corpus_version, workload, prompt_hash, embedding, response)
     values ($1, $2, $3, $4, $5, $6::real[], $7::jsonb)
     on conflict (key) do update set namespace = excluded.namespace, corpus_version = excluded.corpus_version,
       workload = excluded.workload, prompt_hash = excluded.prompt_hash, embedding = excluded.embedding,
       response = excluded.response, created_at = now()
     returning ${COLUMNS}`,
    [
      entry.key,
      entry.namespace,
      entry.corpusVersion,
      entry.workload,
      entry.promptHash,
      entry.embedding ? floats(entry.embedding) : null,
      json(entry.response) ?? 'null',
    ],
  );
  return toEntry(row!);
}

/** A namespace's entries, newest first — the candidates for a similarity match. */
export async function listCacheEntries(db: Queryable, namespace: string, limit = 1000): Promise<CacheEntry[]> {
  const rows = await db.query<CacheRow>(
    `select ${COLUMNS} from cache_entry where namespace = $1 order by created_at desc, key limit $2`,
    [namespace, limit],
  );
  return rows.map(toEntry);
}
