import { createHash } from 'node:crypto';
import type { Database } from './database.ts';
import { StoreError } from './store-error.ts';

/**
 * Where a replica finds the index of a corpus it did not build (issue 11): the engine's snapshot bytes,
 * keyed by what makes them valid. NFR-005 still holds — nothing is kept on a replica's local disk — the
 * snapshot is shared state in the database every replica reads.
 */
export interface IndexSnapshotKey {
  /** LoadCorpusReport.corpusVersion: the documents, passages and estate the index was built from. */
  readonly corpusVersion: string;
  /** The index code's tag (layout, embedder, code digest): a snapshot of other code is never loaded. */
  readonly indexFormat: string;
}

export type LoadedIndexSnapshot =
  | { readonly status: 'found'; readonly bytes: Uint8Array }
  | { readonly status: 'missing' }
  /** Rows there, but not a whole snapshot (a torn write, a part changed): rebuild and save over it. */
  | { readonly status: 'corrupt'; readonly reason: string };

/**
 * One part per row. Small on purpose: node-postgres reads a bytea as hex text, and one large row is read
 * much slower than many small ones (a scratch measurement on 100 MB took longer with every size above
 * this; `npm run bench` prints the load time this size gives).
 */
export const INDEX_SNAPSHOT_PART_BYTES = 1024 * 1024;

/** How many snapshots (keys) are kept: the newest two, so a rolling update's old and new code both find theirs. */
export const INDEX_SNAPSHOTS_KEPT = 2;

/** Parts read at once. */
const READERS = 4;

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/**
 * Saves `bytes` under `key`, in parts, in one transaction, replacing what was there, and drops all but the
 * newest snapshots. Two replicas saving the same key at once both succeed: a part the other has just written
 * is left alone (the build is deterministic, so it is the same bytes; the whole-snapshot digest on every row
 * catches any that are not).
 */
export async function saveIndexSnapshot(
  db: Database,
  key: IndexSnapshotKey,
  bytes: Uint8Array,
  options: { partBytes?: number } = {},
): Promise<{ parts: number }> {
  const partBytes = options.partBytes ?? INDEX_SNAPSHOT_PART_BYTES;
  if (!Number.isInteger(partBytes) || partBytes <= 0) throw new StoreError('invalid_argument', `partBytes must be a positive integer, got ${partBytes}`);
  if (!key.corpusVersion || !key.indexFormat) throw new StoreError('invalid_argument', 'an index snapshot needs a corpus version and an index format');
  const parts = Math.max(1, Math.ceil(bytes.length / partBytes));
  const digest = sha256(bytes);
  await db.transaction(async (tx) => {
    // Over whatever was there: a torn or corrupt set under this key is replaced, not topped up.
    await tx.query('delete from index_snapshot where corpus_version = $1 and index_format = $2', [key.corpusVersion, key.indexFormat]);
    for (let part = 0; part < parts; part++) {
      await tx.query(
        `insert into index_snapshot (corpus_version, index_format, part, parts, total_bytes, sha256, bytes)
         values ($1, $2, $3, $4, $5, $6, $7)
         on conflict (corpus_version, index_format, part) do nothing`,
        [key.corpusVersion, key.indexFormat, part, parts, bytes.length, digest, bytes.subarray(part * partBytes, (part + 1) * partBytes)],
      );
    }
    await tx.query(
      `delete from index_snapshot s where (s.corpus_version, s.index_format) not in (
         select corpus_version, index_format from index_snapshot
         group by corpus_version, index_format order by max(created_at) desc, corpus_version, index_format limit $1)`,
      [INDEX_SNAPSHOTS_KEPT],
    );
  });
  return { parts };
}

/** The snapshot saved under `key`, read part by part and checked whole against its digest. */
export async function loadIndexSnapshot(db: Database, key: IndexSnapshotKey): Promise<LoadedIndexSnapshot> {
  const rows = await db.query<{ part: number; parts: number; total_bytes: number; sha256: string; size: number }>(
    `select part, parts, total_bytes::float8 as total_bytes, sha256, octet_length(bytes) as size
     from index_snapshot where corpus_version = $1 and index_format = $2 order by part`,
    [key.corpusVersion, key.indexFormat],
  );
  if (rows.length === 0) return { status: 'missing' };
  const first = rows[0]!;
  if (
    rows.some((r, i) => r.part !== i || r.parts !== first.parts || r.sha256 !== first.sha256 || r.total_bytes !== first.total_bytes) ||
    rows.length !== first.parts
  ) {
    return { status: 'corrupt', reason: `${rows.length} of ${first.parts} parts, or parts of different snapshots` };
  }
  const total = rows.reduce((n, r) => n + r.size, 0);
  if (total !== first.total_bytes) return { status: 'corrupt', reason: `${total} bytes stored, ${first.total_bytes} expected` };
  const bytes = new Uint8Array(total);
  const offsets: number[] = [];
  let at = 0;
  for (const r of rows) {
    offsets.push(at);
    at += r.size;
  }
  let torn: string | null = null;
  if (db.copyBytea && db.literal) {
    // On a server, one binary COPY of every part: raw bytes, not hex text.
    const parts = await db.copyBytea(
      `select bytes from index_snapshot where corpus_version = ${db.literal(key.corpusVersion)} and index_format = ${db.literal(key.indexFormat)} order by part`,
    );
    if (parts.length !== rows.length) torn = `${parts.length} parts read, ${rows.length} listed`;
    else
      parts.forEach((p, i) => {
        if (p.length !== rows[i]!.size) torn = `part ${i} changed while it was read`;
        else bytes.set(p, offsets[i]!);
      });
  } else {
    // A few parts in flight at once (PGlite takes them in turn; it hands bytes over as they are).
    let nextPart = 0;
    const reader = async () => {
      while (nextPart < rows.length && torn === null) {
        const r = rows[nextPart++]!;
        const [row] = await db.query<{ bytes: Uint8Array }>('select bytes from index_snapshot where corpus_version = $1 and index_format = $2 and part = $3', [
          key.corpusVersion,
          key.indexFormat,
          r.part,
        ]);
        if (!row || row.bytes.length !== r.size) torn = `part ${r.part} changed while it was read`;
        else bytes.set(row.bytes, offsets[r.part]!);
      }
    };
    await Promise.all(Array.from({ length: READERS }, reader));
  }
  if (torn !== null) return { status: 'corrupt', reason: torn };
  if (sha256(bytes) !== first.sha256) return { status: 'corrupt', reason: 'its bytes do not match their digest' };
  return { status: 'found', bytes };
}
