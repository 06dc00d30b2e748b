import { type CacheCandidate, type CacheEntry, type CacheStore, decodeVector, encodeVector } from '@sandscope/engine/models';
import type { Queryable } from './database.ts';
import { floats, json } from './values.ts';

/** The separator the engine's SemanticCache puts between the parts of a namespace: corpus version, workload, polarity. */
const NAMESPACE_SEPARATOR = '\u241f';

interface CandidateRow {
  key: string;
  namespace: string;
  embedder_id: string | null;
  vector_code: string | null;
  /** Only on rows written before `vector_code` (migration 0027). */
  embedding: number[] | null;
  evidence_ids: string[];
  created_ms: number;
}

interface CacheStoreRow extends CandidateRow {
  response: unknown;
}

export interface DatabaseCacheStoreOptions {
  /**
   * Most entries one namespace scan returns, newest first (default 1000): the
   * similarity search reads every candidate, so an unbounded table must not make
   * each cache miss read all of it.
   */
  readonly scanLimit?: number;
}

/**
 * The semantic cache's entries in the store's database (`cache_entry`), so every
 * replica on one Postgres server answers a question another replica already
 * paid for (issue 11 section 2). On embedded PGlite it is one process's cache
 * that survives a restart.
 *
 * The columns `corpus_version`, `workload` and `prompt_hash` predate the
 * engine's entry shape; they are filled from the namespace and key so an
 * operator can still ask the table which corpus version an answer was for.
 */
export class DatabaseCacheStore implements CacheStore {
  readonly #db: Queryable;
  readonly #scanLimit: number;

  constructor(db: Queryable, options: DatabaseCacheStoreOptions = {}) {
    this.#db = db;
    this.#scanLimit = options.scanLimit ?? 1000;
  }

  async get(key: string): Promise<CacheEntry | undefined> {
    const [row] = await this.#db.query<CacheStoreRow>(`select ${COLUMNS} from cache_entry where key = $1`, [key]);
    return row ? entryOf(row) : undefined;
  }

  async set(entry: CacheEntry): Promise<void> {
    const cut = entry.namespace.indexOf(NAMESPACE_SEPARATOR);
    const corpusVersion = cut < 0 ? entry.namespace : entry.namespace.slice(0, cut);
    // After the workload the engine may add the question's polarity words (semantic-cache.ts); they are not the workload.
    const workload = cut < 0 ? '' : (entry.namespace.slice(cut + NAMESPACE_SEPARATOR.length).split(NAMESPACE_SEPARATOR)[0] ?? '');
    await this.#db.query(
      `insert into cache_entry (key, namespace, corpus_version, workload, prompt_hash, embedder_id, embedding, vector_code, evidence_ids, response, created_at)
       values ($1, $2, $3, $4, $1, $5, null, $6, $7::text[], $8::jsonb, $9)
       on conflict (key) do update set namespace = excluded.namespace, corpus_version = excluded.corpus_version,
         workload = excluded.workload, prompt_hash = excluded.prompt_hash, embedder_id = excluded.embedder_id,
         embedding = null, vector_code = excluded.vector_code, evidence_ids = excluded.evidence_ids,
         response = excluded.response, created_at = excluded.created_at`,
      [
        entry.key,
        entry.namespace,
        corpusVersion,
        workload,
        entry.embedderId,
        entry.vector ? encodeVector(floats(entry.vector)) : null,
        [...entry.evidenceIds],
        json(entry.text),
        new Date(entry.createdAt),
      ],
    );
  }

  async scan(namespace: string): Promise<readonly CacheCandidate[]> {
    const rows = await this.#db.query<CandidateRow & { answer_is_text: boolean }>(
      `select ${CANDIDATE_COLUMNS}, jsonb_typeof(response) = 'string' as answer_is_text
       from cache_entry where namespace = $1 order by created_at desc, key limit $2`,
      [namespace, this.#scanLimit],
    );
    return rows.flatMap((row) => (row.answer_is_text ? [candidateOf(row)] : []));
  }

  async delete(key: string): Promise<boolean> {
    const rows = await this.#db.query<{ key: string }>('delete from cache_entry where key = $1 returning key', [key]);
    return rows.length > 0;
  }
}

// created_at as whole epoch milliseconds in SQL: the adapters parse int8 and numeric differently (database.ts). The
// real[] column is read only where a row has no code, so a scan over new rows parses no array of numbers.
const CANDIDATE_COLUMNS = `key, namespace, embedder_id, vector_code, case when vector_code is null then embedding end as embedding,
  evidence_ids, (extract(epoch from created_at) * 1000)::float8 as created_ms`;
const COLUMNS = `${CANDIDATE_COLUMNS}, response`;

function candidateOf(row: CandidateRow): CacheCandidate {
  return {
    key: row.key,
    namespace: row.namespace,
    embedderId: row.embedder_id,
    vector: row.vector_code === null ? row.embedding : vectorOf(row.vector_code),
    evidenceIds: row.evidence_ids,
    createdAt: Math.round(row.created_ms),
  };
}

/** A code this store did not write (another writer's value) is no vector: the entry is then found by exact key only. */
function vectorOf(code: string): Float32Array | null {
  try {
    return decodeVector(code);
  } catch {
    return null;
  }
}

/** A row written by the older repository shape (a non-text response) is not an answer this cache can serve. */
function entryOf(row: CacheStoreRow): CacheEntry | undefined {
  if (typeof row.response !== 'string') return undefined;
  const { vector, ...candidate } = candidateOf(row);
  return { ...candidate, vector: vector ? Array.from(vector) : null, text: row.response };
}
