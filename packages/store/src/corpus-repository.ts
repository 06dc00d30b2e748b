import { createHash } from 'node:crypto';
import type { Chunk, Estate, SourceDocument } from '@sandscope/engine';
import type { Database, Queryable } from './database.ts';
import { StoreError } from './store-error.ts';
import { floats } from './values.ts';

/** Vectors for the corpus's chunks, in the same order as the chunks. */
export interface CorpusEmbeddings {
  /** The embedding space (Embedder.id); similarity search compares only vectors of one space. */
  readonly embedderId: string;
  readonly vectors: readonly ArrayLike<number>[];
}

export interface LoadCorpusReport {
  /** Digest of documents, chunks and estate; record it on each run so an answer can be tied to what it read. */
  readonly corpusVersion: string;
  readonly documents: { readonly changed: number; readonly removed: number };
  /** `retained`: gone from the corpus but kept because a stored citation points at them. */
  readonly chunks: { readonly changed: number; readonly removed: number; readonly retained: number };
  readonly embeddings: { readonly changed: number };
  readonly services: { readonly changed: number; readonly removed: number };
}

function duplicates(ids: readonly string[]): string[] {
  const seen = new Set<string>();
  return [...new Set(ids.filter((id) => (seen.has(id) ? true : (seen.add(id), false))))];
}

function requireUnique(ids: readonly string[], what: string): void {
  const dup = duplicates(ids);
  if (dup.length) throw new StoreError('invalid_argument', `duplicate ${what}: ${dup.slice(0, 5).join(', ')}`);
}

function corpusVersionOf(documents: readonly SourceDocument[], chunks: readonly Chunk[], estate: Estate): string {
  const hash = createHash('sha256');
  for (const d of [...documents].sort((a, b) => a.doc.localeCompare(b.doc))) hash.update(`doc\0${d.doc}\0${d.title}\0${d.text}\0`);
  for (const c of chunks) hash.update(`chunk\0${c.id}\0${c.doc}\0${c.heading}\0${c.text}\0`);
  hash.update(JSON.stringify(estate));
  return hash.digest('hex').slice(0, 16);
}

const wordCount = (text: string) => text.split(/\s+/).filter(Boolean).length;

async function loadEstate(tx: Queryable, estate: Estate): Promise<LoadCorpusReport['services']> {
  const s = estate.services;
  const changed = await tx.query(
    `insert into service (id, name, tier, kind, owner, description)
     select * from unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::text[], $6::text[])
     on conflict (id) do update set name = excluded.name, tier = excluded.tier, kind = excluded.kind,
       owner = excluded.owner, description = excluded.description
     where (service.name, service.tier, service.kind, service.owner, service.description)
       is distinct from (excluded.name, excluded.tier, excluded.kind, excluded.owner, excluded.description)
     returning id`,
    [s.map((x) => x.id), s.map((x) => x.name), s.map((x) => x.tier), s.map((x) => x.kind), s.map((x) => x.owner), s.map((x) => x.description)],
  );
  await tx.query('delete from service_dependency');
  await tx.query(
    `insert into service_dependency (from_service, to_service)
     select distinct f, t from unnest($1::text[], $2::text[]) as d(f, t)`,
    [estate.dependencies.map((d) => d.from), estate.dependencies.map((d) => d.to)],
  );
  // A service that left the estate goes, unless incidents or telemetry still name it.
  const removed = await tx.query(
    `delete from service s where s.id <> all($1::text[])
       and not exists (select 1 from incident i where i.service = s.id)
       and not exists (select 1 from telemetry_event t where t.service = s.id)
     returning id`,
    [s.map((x) => x.id)],
  );
  return { changed: changed.length, removed: removed.length };
}

async function loadEmbeddings(tx: Queryable, chunks: readonly Chunk[], embeddings: CorpusEmbeddings): Promise<number> {
  if (embeddings.vectors.length !== chunks.length) {
    throw new StoreError('invalid_argument', `${embeddings.vectors.length} embeddings for ${chunks.length} chunks; they must align`);
  }
  const byChunk: Record<string, number[]> = {};
  chunks.forEach((c, i) => (byChunk[c.id] = floats(embeddings.vectors[i]!)));
  // One statement for the whole corpus: the vectors travel as one JSON object.
  const changed = await tx.query(
    `insert into chunk_embedding (chunk_id, embedder_id, dimensions, embedding)
     select e.key, $2, jsonb_array_length(e.value),
            array(select x::real from jsonb_array_elements_text(e.value) with ordinality as t(x, i) order by i)
     from jsonb_each($1::jsonb) as e
     on conflict (chunk_id) do update set embedder_id = excluded.embedder_id, dimensions = excluded.dimensions,
       embedding = excluded.embedding
     where (chunk_embedding.embedder_id, chunk_embedding.embedding) is distinct from (excluded.embedder_id, excluded.embedding)
     returning chunk_id`,
    [JSON.stringify(byChunk), embeddings.embedderId],
  );
  return changed.length;
}

/**
 * Writes the corpus and estate at start-up, in one transaction: idempotent,
 * replacing rows that changed. The retrieval index itself is rebuilt in memory
 * by the caller, never cached on local disk, so a replica can be replaced
 * without losing anything (NFR-005). A chunk that left the corpus is deleted
 * unless a stored citation points at it — a citation must keep resolving — and
 * a chunk whose text changed loses its stale embedding unless a new one is given.
 * A changed chunk is rewritten in place, under the same id: a run's citation
 * therefore keeps the passage it read (completeRun), never reads it from here (S-257).
 */
export async function loadCorpus(
  db: Database,
  documents: readonly SourceDocument[],
  chunks: readonly Chunk[],
  estate: Estate,
  embeddings?: CorpusEmbeddings,
): Promise<LoadCorpusReport> {
  requireUnique(
    documents.map((d) => d.doc),
    'document names',
  );
  requireUnique(
    chunks.map((c) => c.id),
    'chunk ids',
  );
  const docNames = new Set(documents.map((d) => d.doc));
  const orphan = chunks.find((c) => !docNames.has(c.doc));
  if (orphan) throw new StoreError('invalid_argument', `chunk "${orphan.id}" belongs to "${orphan.doc}", which is not among the documents`);

  const ord = new Map<string, number>();
  const ords = chunks.map((c) => {
    const n = ord.get(c.doc) ?? 0;
    ord.set(c.doc, n + 1);
    return n;
  });

  return db.transaction(async (tx) => {
    const services = await loadEstate(tx, estate);
    const changedDocs = await tx.query(
      `insert into document (doc, title, text, words)
       select * from unnest($1::text[], $2::text[], $3::text[], $4::int[])
       on conflict (doc) do update set title = excluded.title, text = excluded.text, words = excluded.words
       where (document.title, document.text, document.words) is distinct from (excluded.title, excluded.text, excluded.words)
       returning doc`,
      [documents.map((d) => d.doc), documents.map((d) => d.title), documents.map((d) => d.text), documents.map((d) => wordCount(d.text))],
    );
    const changedChunks = await tx.query<{ id: string; text_changed: boolean }>(
      `with incoming as (select * from unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[]) as t(id, doc, heading, text, ord)),
       before as (select c.id, c.text from chunk c join incoming i using (id))
       insert into chunk (id, doc, heading, text, ord)
       select id, doc, heading, text, ord from incoming
       on conflict (id) do update set doc = excluded.doc, heading = excluded.heading, text = excluded.text, ord = excluded.ord
       where (chunk.doc, chunk.heading, chunk.text, chunk.ord) is distinct from (excluded.doc, excluded.heading, excluded.text, excluded.ord)
       returning id, coalesce((select b.text from before b where b.id = chunk.id), '') is distinct from chunk.text as text_changed`,
      [chunks.map((c) => c.id), chunks.map((c) => c.doc), chunks.map((c) => c.heading), chunks.map((c) => c.text), ords],
    );
    const stale = changedChunks.filter((c) => c.text_changed).map((c) => c.id);
    if (stale.length) await tx.query('delete from chunk_embedding where chunk_id = any($1::text[])', [stale]);

    const ids = chunks.map((c) => c.id);
    const removed = await tx.query(
      `delete from chunk c where c.id <> all($1::text[])
         and not exists (select 1 from citation x where x.chunk_id = c.id)
       returning id`,
      [ids],
    );
    const [retained] = await tx.query<{ n: number }>('select count(*)::int as n from chunk where id <> all($1::text[])', [ids]);
    const removedDocs = await tx.query(
      `delete from document d where d.doc <> all($1::text[])
         and not exists (select 1 from chunk c where c.doc = d.doc)
       returning doc`,
      [documents.map((d) => d.doc)],
    );
    const changedEmbeddings = embeddings ? await loadEmbeddings(tx, chunks, embeddings) : 0;
    return {
      corpusVersion: corpusVersionOf(documents, chunks, estate),
      documents: { changed: changedDocs.length, removed: removedDocs.length },
      chunks: { changed: changedChunks.length, removed: removed.length, retained: retained?.n ?? 0 },
      embeddings: { changed: changedEmbeddings },
      services,
    };
  });
}
