import { cosine } from '@sandscope/engine';
import type { Queryable } from './database.ts';
import type { VectorSearch } from './migrator.ts';
import { postgresError, StoreError } from './store-error.ts';
import { floats } from './values.ts';

export interface SimilarChunk {
  readonly chunkId: string;
  /** Cosine similarity, -1..1. */
  readonly similarity: number;
}

export interface SimilaritySearchOptions {
  readonly k: number;
  /** From the migration report. 'pgvector' uses the HNSW index; 'in-process' works on any Postgres. */
  readonly vectorSearch: VectorSearch;
  /** Compare only vectors from this embedding space. */
  readonly embedderId?: string;
}

/** The dimension of the pgvector column (seed §Four: 768-dimension hashing embedder). */
export const PGVECTOR_DIMENSIONS = 768;

/** The engine's cosine: one definition of similarity for the index and the table. */
export const cosineSimilarity = cosine;

/**
 * The chunks nearest a query vector. Where pgvector is installed the database
 * ranks them; elsewhere (Debian's PostgreSQL 15) every vector of the query's
 * dimension is read and ranked here. Both return the same order for the same
 * data — the contract suite checks it — so callers need not care which ran.
 */
export async function searchSimilarChunks(db: Queryable, query: ArrayLike<number>, options: SimilaritySearchOptions): Promise<SimilarChunk[]> {
  if (!Number.isInteger(options.k) || options.k < 1) throw new StoreError('invalid_argument', `k must be a positive integer, got ${options.k}`);
  const q = floats(query);
  const embedder = options.embedderId ?? null;

  if (options.vectorSearch === 'pgvector') {
    if (q.length !== PGVECTOR_DIMENSIONS) {
      throw new StoreError('invalid_argument', `pgvector search takes ${PGVECTOR_DIMENSIONS}-dimension queries, got ${q.length}`);
    }
    let rows: { chunk_id: string; similarity: number }[];
    try {
      rows = await db.query(
        `select chunk_id, (1 - (embedding_vector <=> $1::real[]::vector(768)))::float8 as similarity
         from chunk_embedding
         where embedding_vector is not null and ($3::text is null or embedder_id = $3)
         order by embedding_vector <=> $1::real[]::vector(768), chunk_id
         limit $2`,
        [q, options.k, embedder],
      );
    } catch (error) {
      const code = postgresError(error)?.code;
      // 42703 undefined column, 42704 undefined type: the pgvector migration is not applied here.
      if (code === '42703' || code === '42704') {
        throw new StoreError('vector_search_unavailable', 'pgvector search asked for, but this database has no vector column', { cause: error });
      }
      throw error;
    }
    return rows.map((r) => ({ chunkId: r.chunk_id, similarity: r.similarity }));
  }

  const rows = await db.query<{ chunk_id: string; embedding: number[] }>(
    `select chunk_id, embedding from chunk_embedding
     where dimensions = $1 and ($2::text is null or embedder_id = $2)`,
    [q.length, embedder],
  );
  return rows
    .map((r) => ({ chunkId: r.chunk_id, similarity: cosineSimilarity(q, r.embedding) }))
    .sort((a, b) => b.similarity - a.similarity || a.chunkId.localeCompare(b.chunkId))
    .slice(0, options.k);
}
