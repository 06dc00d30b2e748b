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
export const SNAPSHOT_LAYOUT = 'kb-snapshot-3';

const MAGIC = 'SSKBSNAP';

/** The index as the knowledge base holds it: what build makes and restore gives back. */
export interface IndexParts {
  /** The corpus version of the documents it was built from (KnowledgeBase.version). */
  readonly version: string;
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

type ChunkKey = 'id' | 'doc' | 'docTitle' | 'heading' | 'level' | 'path' | 'text';
const STRING_KEYS = new Set<ChunkKey>(['id', 'doc', 'docTitle', 'heading', 'text']);

interface Header {
  readonly layout: string;
  readonly littleEndian: true;
  readonly version: string;
  readonly avgLength: number;
  readonly embedderId: string | null;
  readonly dimensions: number;
  readonly degradedReason?: string;
  /** Each distinct key order of a passage object (JSON of a passage must come back the same). */
  readonly shapes: readonly (readonly ChunkKey[])[];
  /** How many strings each list holds, in the string table's order after the passages' own. */
  readonly lists: { readonly terms: number; readonly names: number; readonly lexicon: Record<keyof LexiconParts, number>; readonly documents: number };
  readonly hazards: readonly (readonly [string, readonly PassageHazard[]])[];
  /** Element counts of the arrays, in ARRAYS order. */
  readonly counts: readonly number[];
}

/**
 * Every string is in one UTF-8 blob, cut by end offsets (in UTF-16 units of the decoded text): one native
 * decode and a slice per string, where JSON.parse of the passages was most of a restore (issue 11).
 */
const ARRAYS = [
  ['strings', Uint8Array],
  ['stringEnds', Int32Array],
  ['chunkShape', Int32Array],
  ['chunkLevel', Int32Array],
  ['chunkPathLength', Int32Array],
  ['lengths', Float32Array],
  ['postingStart', Int32Array],
  ['postingDoc', Int32Array],
  ['postingTf', Float32Array],
  ['vectors', Float32Array],
  ['docTermStart', Int32Array],
  ['docTerms', Int32Array],
  ['docPassageStart', Int32Array],
  ['docPassages', Int32Array],
] as const;
type ArrayName = (typeof ARRAYS)[number][0];
interface Arrays {
  strings: Uint8Array;
  stringEnds: Int32Array;
  chunkShape: Int32Array;
  chunkLevel: Int32Array;
  chunkPathLength: Int32Array;
  lengths: Float32Array;
  postingStart: Int32Array;
  postingDoc: Int32Array;
  postingTf: Float32Array;
  vectors: Float32Array;
  docTermStart: Int32Array;
  docTerms: Int32Array;
  docPassageStart: Int32Array;
  docPassages: Int32Array;
}

const littleEndian = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
const align8 = (n: number) => (n + 7) & ~7;

export function encodeSnapshot(index: IndexParts): Uint8Array {
  if (!littleEndian) throw new SnapshotError('index snapshots are written on little-endian machines only');
  const strings: string[] = [];
  const n = index.chunks.length;

  const shapes: ChunkKey[][] = [];
  const shapeIds = new Map<string, number>();
  const chunkShape = new Int32Array(n);
  const chunkLevel = new Int32Array(n);
  const chunkPathLength = new Int32Array(n);
  index.chunks.forEach((c, i) => {
    const keys = Object.keys(c) as ChunkKey[];
    const shapeKey = keys.join(',');
    let id = shapeIds.get(shapeKey);
    if (id === undefined) {
      for (const k of keys)
        if (!STRING_KEYS.has(k) && k !== 'level' && k !== 'path') throw new SnapshotError(`a passage has the field "${k}", which snapshots do not hold`);
      shapeIds.set(shapeKey, (id = shapes.length));
      shapes.push(keys);
    }
    chunkShape[i] = id;
    for (const k of keys) {
      if (STRING_KEYS.has(k)) strings.push(c[k as 'id']);
      else if (k === 'level') chunkLevel[i] = c.level!;
      else {
        chunkPathLength[i] = c.path!.length;
        for (const part of c.path!) strings.push(part);
      }
    }
  });

  const bm25 = index.retriever.bm25;
  const terms = [...bm25.postings.keys()];
  // Pushed one by one: a spread of a 100k-word list overflows the call stack.
  for (const t of terms) strings.push(t);
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

  for (const name of index.names) strings.push(name);
  const lexiconCounts = {} as Record<keyof LexiconParts, number>;
  for (const key of ['names', 'multiWord', 'aliases', 'vocabulary', 'subjects'] as const) {
    const list = key === 'aliases' ? index.lexicon.aliases.flat() : index.lexicon[key];
    lexiconCounts[key] = list.length;
    for (const str of list) strings.push(str);
  }

  const position = new Map(index.chunks.map((c, i) => [c, i]));
  const docs = [...index.documents];
  const docTermStart = new Int32Array(docs.length + 1);
  const docPassageStart = new Int32Array(docs.length + 1);
  let termCount = 0;
  let passageCount = 0;
  for (const [, d] of docs) {
    termCount += d.terms.size;
    passageCount += d.passages.length;
  }
  const docTerms = new Int32Array(termCount);
  const docPassages = new Int32Array(passageCount);
  let k = 0;
  let q = 0;
  docs.forEach(([doc, d], j) => {
    docTermStart[j] = k;
    docPassageStart[j] = q;
    for (const t of d.terms) {
      const id = termId.get(t);
      if (id === undefined) throw new SnapshotError(`document ${doc} has the term "${t}", which no posting holds`);
      docTerms[k++] = id;
    }
    for (const c of d.passages) docPassages[q++] = position.get(c)!;
    strings.push(doc, d.lead, JSON.stringify(d.sections));
  });
  docTermStart[docs.length] = k;
  docPassageStart[docs.length] = q;

  const stringEnds = new Int32Array(strings.length);
  let end = 0;
  strings.forEach((str, i) => {
    end += str.length;
    stringEnds[i] = end;
  });
  const vectors = index.retriever.vectors ?? new Float32Array(0);
  const arrays: Arrays = {
    strings: new TextEncoder().encode(strings.join('')),
    stringEnds,
    chunkShape,
    chunkLevel,
    chunkPathLength,
    lengths: bm25.lengths,
    postingStart,
    postingDoc,
    postingTf,
    vectors,
    docTermStart,
    docTerms,
    docPassageStart,
    docPassages,
  };
  const header: Header = {
    layout: SNAPSHOT_LAYOUT,
    littleEndian: true,
    version: index.version,
    avgLength: bm25.avgLength,
    embedderId: index.retriever.vectors ? index.retriever.embedderId : null,
    dimensions: n ? vectors.length / n : 0,
    ...(index.retriever.degradedReason !== undefined ? { degradedReason: index.retriever.degradedReason } : {}),
    shapes,
    lists: { terms: terms.length, names: index.names.size, lexicon: lexiconCounts, documents: docs.length },
    hazards: [...index.hazards],
    counts: ARRAYS.map(([a]) => arrays[a].length),
  };
  const json = new TextEncoder().encode(JSON.stringify(header));
  const first = align8(MAGIC.length + 4 + json.length);
  let total = first;
  for (const [a] of ARRAYS) total = align8(total + arrays[a].byteLength);
  const out = new Uint8Array(total);
  out.set(new TextEncoder().encode(MAGIC), 0);
  new DataView(out.buffer).setUint32(MAGIC.length, json.length, true);
  out.set(json, MAGIC.length + 4);
  let offset = first;
  for (const [a] of ARRAYS) {
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
  const arrays = {} as Record<ArrayName, Uint8Array | Int32Array | Float32Array>;
  ARRAYS.forEach(([a, Kind], i) => {
    const count = header.counts[i]!;
    const byteLength = count * Kind.BYTES_PER_ELEMENT;
    if (offset + byteLength > base.length) throw new SnapshotError(`index snapshot truncated in ${a}`);
    arrays[a] = new Kind(base.buffer as ArrayBuffer, base.byteOffset + offset, count);
    offset = align8(offset + byteLength);
  });
  const a = arrays as unknown as Arrays;

  const text = new TextDecoder().decode(a.strings);
  const ends = a.stringEnds;
  if (ends.length > 0 && ends[ends.length - 1] !== text.length) throw new SnapshotError('index snapshot strings disagree with their offsets');
  let cursor = 0;
  const next = (): string => {
    if (cursor >= ends.length) throw new SnapshotError('index snapshot has fewer strings than it lists');
    const from = cursor === 0 ? 0 : ends[cursor - 1]!;
    return text.slice(from, ends[cursor++]!);
  };
  const take = (count: number): string[] => Array.from({ length: count }, next);

  const n = a.chunkShape.length;
  const chunks: Chunk[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const shape = header.shapes[a.chunkShape[i]!];
    if (!shape) throw new SnapshotError('index snapshot names a passage shape it does not hold');
    const c: Record<string, unknown> = {};
    for (const key of shape) c[key] = key === 'level' ? a.chunkLevel[i] : key === 'path' ? take(a.chunkPathLength[i]!) : next();
    chunks[i] = c as unknown as Chunk;
  }

  const terms = take(header.lists.terms);
  const postingStart = a.postingStart;
  if (a.lengths.length !== n || postingStart.length !== terms.length + 1 || postingStart[terms.length] !== a.postingDoc.length) {
    throw new SnapshotError('index snapshot arrays disagree with its passages and terms');
  }
  const vectorCount = header.embedderId === null ? 0 : n * header.dimensions;
  if (a.vectors.length !== vectorCount) throw new SnapshotError('index snapshot vectors disagree with its passages');
  const postings = new Map<string, Posting>();
  for (let t = 0; t < terms.length; t++) {
    const from = postingStart[t]!;
    const to = postingStart[t + 1]!;
    postings.set(terms[t]!, { doc: a.postingDoc.subarray(from, to), tf: a.postingTf.subarray(from, to) });
  }
  const bm25: Bm25Parts = { lengths: a.lengths, avgLength: header.avgLength, postings };

  const names = new Set(take(header.lists.names));
  const counts = header.lists.lexicon;
  const lexiconNames = take(counts.names);
  const multiWord = take(counts.multiWord);
  const flat = take(counts.aliases);
  const aliases: [string, string][] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) aliases.push([flat[i]!, flat[i + 1]!]);
  const lexicon: LexiconParts = { names: lexiconNames, multiWord, aliases, vocabulary: take(counts.vocabulary), subjects: take(counts.subjects) };

  // A document's term set and sections are made when it is first asked for: at 100k documents, making
  // them all up front was most of a restore, and a question reads only the documents it retrieved from.
  const documents = new Map<string, DocumentKnowledge>();
  const docTermStart = a.docTermStart;
  const docPassageStart = a.docPassageStart;
  if (docTermStart.length !== header.lists.documents + 1 || docPassageStart.length !== header.lists.documents + 1)
    throw new SnapshotError('index snapshot documents disagree with their arrays');
  for (let j = 0; j < header.lists.documents; j++) {
    const [doc, lead, sectionsJson] = [next(), next(), next()];
    let terms: Set<string> | undefined;
    let sections: readonly SectionRole[] | undefined;
    let passages: Chunk[] | undefined;
    documents.set(doc, {
      get terms() {
        if (!terms) {
          terms = new Set();
          for (let k = docTermStart[j]!; k < docTermStart[j + 1]!; k++) terms.add(termsList[a.docTerms[k]!]!);
        }
        return terms;
      },
      get sections() {
        return (sections ??= JSON.parse(sectionsJson) as SectionRole[]);
      },
      lead,
      get passages() {
        if (!passages) {
          passages = [];
          for (let k = docPassageStart[j]!; k < docPassageStart[j + 1]!; k++) passages.push(chunks[a.docPassages[k]!]!);
        }
        return passages;
      },
    });
  }
  const termsList = terms;
  if (cursor !== ends.length) throw new SnapshotError('index snapshot has more strings than it lists');

  return {
    version: header.version,
    chunks,
    retriever: {
      bm25,
      vectors: header.embedderId === null ? null : a.vectors,
      embedderId: header.embedderId,
      ...(header.degradedReason !== undefined ? { degradedReason: header.degradedReason } : {}),
    },
    lexicon,
    documents,
    names,
    hazards: new Map(header.hazards),
  };
}
