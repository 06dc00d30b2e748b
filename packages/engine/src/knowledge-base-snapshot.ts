import type { DocumentKnowledge } from './answerability/features.ts';
import type { SectionRole } from './answerability/section-role.ts';
import type { PassageHazard } from './corpus/passage-hazards.ts';
import type { Bm25Parts, Posting } from './retrieval/bm25.ts';
import type { RetrieverParts } from './retrieval/hybrid-retriever.ts';
import type { LexiconParts } from './retrieval/question-shape.ts';
import type { Chunk } from './types.ts';

/**
 * An index snapshot: everything a knowledge base derives from its corpus — passages, BM25 postings, the
 * dense matrix, the entity lexicon, each document's terms and sections, the name vocabulary and the passage
 * hazards — as bytes, so a replica can start from it instead of rebuilding (issue 11: 100k passages took
 * seconds to index on every start). What is NOT in it is handed in again at restore: the answerability
 * model, the calibrated bands and the thesaurus (WordNet), so a snapshot never pins a stale model.
 *
 * Layout: the magic, a little-endian u32 header length, the header as JSON, then typed arrays, each
 * 8-byte aligned, in the order of `ARRAYS`. Typed arrays are read in the machine's byte order, and every
 * machine we run on is little-endian: the format tag says so, and decoding refuses another.
 */

/** Bump when the layout or the meaning of a field changes; it is part of the snapshot's store key. */
export const SNAPSHOT_LAYOUT = 'kb-snapshot-2';

const MAGIC = 'SSKBSNAP';

/** The index as the knowledge base holds it: what build makes and restore gives back. */
export interface IndexParts {
  readonly chunks: readonly Chunk[];
  readonly retriever: RetrieverParts;
  readonly lexicon: LexiconParts;
  /** Each document's knowledge, in the order documents first appear among the passages. */
  readonly documents: ReadonlyMap<string, DocumentKnowledge>;
  readonly names: ReadonlySet<string>;
  readonly hazards: ReadonlyMap<string, readonly PassageHazard[]>;
}

/** A snapshot that cannot be read: the caller rebuilds (and may save a good one over it). */
export class SnapshotError extends Error {
  override readonly name = 'SnapshotError';
}

interface Header {
  readonly layout: string;
  readonly littleEndian: true;
  readonly chunks: readonly Chunk[];
  /** Index terms in the postings' order; term ids below are positions here. */
  readonly terms: readonly string[];
  readonly avgLength: number;
  readonly embedderId: string | null;
  readonly dimensions: number;
  readonly degradedReason?: string;
  readonly lexicon: LexiconParts;
  /** [doc, lead passage id, sections, passage positions in `chunks`] per document, in order. */
  readonly documents: readonly (readonly [string, string, readonly SectionRole[], readonly number[]])[];
  readonly names: readonly string[];
  readonly hazards: readonly (readonly [string, readonly PassageHazard[]])[];
  /** Element counts of the typed arrays, in ARRAYS order. */
  readonly counts: readonly number[];
}

const ARRAYS = ['lengths', 'postingStart', 'postingDoc', 'postingTf', 'vectors', 'docTermStart', 'docTerms'] as const;
type ArrayName = (typeof ARRAYS)[number];
const KIND: Record<ArrayName, Float32ArrayConstructor | Int32ArrayConstructor> = {
  lengths: Float32Array,
  postingStart: Int32Array,
  postingDoc: Int32Array,
  postingTf: Float32Array,
  vectors: Float32Array,
  docTermStart: Int32Array,
  docTerms: Int32Array,
};

const littleEndian = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
const align8 = (n: number) => (n + 7) & ~7;

export function encodeSnapshot(index: IndexParts): Uint8Array {
  if (!littleEndian) throw new SnapshotError('index snapshots are written on little-endian machines only');
  const bm25 = index.retriever.bm25;
  const terms = [...bm25.postings.keys()];
  const termId = new Map(terms.map((t, i) => [t, i]));
  let pairs = 0;
  for (const p of bm25.postings.values()) pairs += p.doc.length;
  const postingStart = new Int32Array(terms.length + 1);
  const postingDoc = new Int32Array(pairs);
  const postingTf = new Float32Array(pairs);
  let at = 0;
  terms.forEach((t, i) => {
    const p = bm25.postings.get(t)!;
    postingStart[i] = at;
    postingDoc.set(p.doc, at);
    postingTf.set(p.tf, at);
    at += p.doc.length;
  });
  postingStart[terms.length] = at;

  const position = new Map(index.chunks.map((c, i) => [c, i]));
  const documents: [string, string, readonly SectionRole[], number[]][] = [];
  const docTermStart = new Int32Array(index.documents.size + 1);
  let docTermCount = 0;
  for (const d of index.documents.values()) docTermCount += d.terms.size;
  const docTerms = new Int32Array(docTermCount);
  let k = 0;
  let j = 0;
  for (const [doc, d] of index.documents) {
    docTermStart[j++] = k;
    for (const t of d.terms) {
      const id = termId.get(t);
      if (id === undefined) throw new SnapshotError(`document ${doc} has the term "${t}", which no posting holds`);
      docTerms[k++] = id;
    }
    documents.push([doc, d.lead, d.sections, d.passages.map((c) => position.get(c)!)]);
  }
  docTermStart[j] = k;

  const vectors = index.retriever.vectors ?? new Float32Array(0);
  const arrays: Record<ArrayName, Float32Array | Int32Array> = { lengths: bm25.lengths, postingStart, postingDoc, postingTf, vectors, docTermStart, docTerms };
  const header: Header = {
    layout: SNAPSHOT_LAYOUT,
    littleEndian: true,
    chunks: index.chunks,
    terms,
    avgLength: bm25.avgLength,
    embedderId: index.retriever.vectors ? index.retriever.embedderId : null,
    dimensions: index.chunks.length ? vectors.length / index.chunks.length : 0,
    ...(index.retriever.degradedReason !== undefined ? { degradedReason: index.retriever.degradedReason } : {}),
    lexicon: index.lexicon,
    documents,
    names: [...index.names],
    hazards: [...index.hazards],
    counts: ARRAYS.map((a) => arrays[a].length),
  };
  const json = new TextEncoder().encode(JSON.stringify(header));
  const start = align8(MAGIC.length + 4 + json.length);
  let total = start;
  for (const a of ARRAYS) total = align8(total + arrays[a].byteLength);
  const out = new Uint8Array(total);
  out.set(new TextEncoder().encode(MAGIC), 0);
  new DataView(out.buffer).setUint32(MAGIC.length, json.length, true);
  out.set(json, MAGIC.length + 4);
  let offset = start;
  for (const a of ARRAYS) {
    const v = arrays[a];
    out.set(new Uint8Array(v.buffer, v.byteOffset, v.byteLength), offset);
    offset = align8(offset + v.byteLength);
  }
  return out;
}

/**
 * The index a snapshot holds. Views into `bytes` where aligned (no copy of the large arrays): the caller
 * must not reuse the buffer. Throws SnapshotError when the bytes are not a whole snapshot of this layout.
 */
export function decodeSnapshot(bytes: Uint8Array): IndexParts {
  if (!littleEndian) throw new SnapshotError('index snapshots are read on little-endian machines only');
  if (bytes.length < MAGIC.length + 4 || new TextDecoder().decode(bytes.subarray(0, MAGIC.length)) !== MAGIC) throw new SnapshotError('not an index snapshot');
  const headerLength = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(MAGIC.length, true);
  if (MAGIC.length + 4 + headerLength > bytes.length) throw new SnapshotError('index snapshot truncated in its header');
  let header: Header;
  try {
    header = JSON.parse(new TextDecoder().decode(bytes.subarray(MAGIC.length + 4, MAGIC.length + 4 + headerLength))) as Header;
  } catch (error) {
    throw new SnapshotError(`index snapshot header unreadable: ${(error as Error).message}`);
  }
  if (header.layout !== SNAPSHOT_LAYOUT) throw new SnapshotError(`index snapshot layout ${header.layout}, expected ${SNAPSHOT_LAYOUT}`);
  if (header.counts?.length !== ARRAYS.length) throw new SnapshotError('index snapshot header lists the wrong arrays');
  // Typed views need their element alignment; a buffer handed over at an odd offset is copied once.
  const base = bytes.byteOffset % 8 === 0 ? bytes : bytes.slice();
  let offset = align8(MAGIC.length + 4 + headerLength);
  const arrays = {} as Record<ArrayName, Float32Array | Int32Array>;
  ARRAYS.forEach((a, i) => {
    const count = header.counts[i]!;
    const byteLength = count * 4;
    if (offset + byteLength > base.length) throw new SnapshotError(`index snapshot truncated in ${a}`);
    arrays[a] = new KIND[a](base.buffer as ArrayBuffer, base.byteOffset + offset, count);
    offset = align8(offset + byteLength);
  });
  const { chunks, terms } = header;
  const n = chunks.length;
  const postingStart = arrays.postingStart as Int32Array;
  if (arrays.lengths.length !== n || postingStart.length !== terms.length + 1 || postingStart[terms.length] !== arrays.postingDoc.length) {
    throw new SnapshotError('index snapshot arrays disagree with its passages and terms');
  }
  const vectorCount = header.embedderId === null ? 0 : n * header.dimensions;
  if (arrays.vectors.length !== vectorCount) throw new SnapshotError('index snapshot vectors disagree with its passages');
  const postings = new Map<string, Posting>();
  for (let t = 0; t < terms.length; t++) {
    const from = postingStart[t]!;
    const to = postingStart[t + 1]!;
    postings.set(terms[t]!, { doc: (arrays.postingDoc as Int32Array).subarray(from, to), tf: (arrays.postingTf as Float32Array).subarray(from, to) });
  }
  const bm25: Bm25Parts = { lengths: arrays.lengths as Float32Array, avgLength: header.avgLength, postings };

  // A document's term set is made when it is first asked for: at 100k documents, building every set up
  // front was most of a restore, and a question reads only the documents of the passages it retrieved.
  const docTermStart = arrays.docTermStart as Int32Array;
  const docTerms = arrays.docTerms as Int32Array;
  const documents = new Map<string, DocumentKnowledge>();
  header.documents.forEach(([doc, lead, sections, passages], i) => {
    let terms: Set<string> | undefined;
    const termsOf = () => {
      if (!terms) {
        terms = new Set();
        for (let k = docTermStart[i]!; k < docTermStart[i + 1]!; k++) terms.add(header.terms[docTerms[k]!]!);
      }
      return terms;
    };
    documents.set(doc, {
      get terms() {
        return termsOf();
      },
      sections,
      lead,
      passages: passages.map((p) => chunks[p]!),
    });
  });

  return {
    chunks,
    retriever: {
      bm25,
      vectors: header.embedderId === null ? null : (arrays.vectors as Float32Array),
      embedderId: header.embedderId,
      ...(header.degradedReason !== undefined ? { degradedReason: header.degradedReason } : {}),
    },
    lexicon: header.lexicon,
    documents,
    names: new Set(header.names),
    hazards: new Map(header.hazards),
  };
}
