import type { Chunk, ScoredChunk } from '../types.ts';
import { Bm25Builder, Bm25Index, type Bm25Parts } from './bm25.ts';
import { type Embedder, EmbedderUnavailableError } from './embedder.ts';
import { tokenize } from './tokenizer.ts';
import { withoutMarkdownExtension } from '../corpus/markdown-name.ts';

/** Fusion weights (seed §Four): identifiers carry more than phrasing, so lexical leads. */
export const LEXICAL_WEIGHT = 0.6;
export const DENSE_WEIGHT = 0.4;
export const DEFAULT_DEPTH = 6;

export interface Retrieval {
  readonly query: string;
  /** Best first, by the fused score. */
  readonly results: readonly ScoredChunk[];
  /** True when the dense signal was missing: the gate must not score this (seed §Four). */
  readonly degraded: boolean;
  readonly degradedReason?: string;
}

/**
 * The text a passage is indexed under: its document's file name (runbook
 * libraries name files after their alert: `RouterErrorRatioTooHigh.md`), title,
 * the headings it stands under, and its own heading carry meaning too.
 */
export function indexText(chunk: Chunk): string {
  return `${withoutMarkdownExtension(chunk.doc).replace(/[/_]+/g, ' ')}\n${chunk.docTitle}\n${chunk.path?.length ? `${chunk.path.join('\n')}\n` : ''}${chunk.heading}\n${chunk.text}`;
}

/** An embedder that can embed a text from its index terms (the hashing embedder): the build tokenizes once. */
export interface TermEmbedder extends Embedder {
  /** The vector of these terms, written into `into` (zeroed); the same vector `embed` gives for their text. */
  embedTerms(terms: readonly string[], into: Float32Array): Float32Array;
  /** embedTerms for one build whose terms are numbered consistently (`ids[k]` numbers `terms[k]`). */
  termEmbedding(): (terms: readonly string[], ids: ArrayLike<number>, into: Float32Array) => Float32Array;
}

function isTermEmbedder(embedder: Embedder): embedder is TermEmbedder {
  return typeof (embedder as Partial<TermEmbedder>).embedTerms === 'function';
}

/** Passages embedded before their vectors are written into the dimension-major matrix together. */
const TRANSPOSE_BLOCK = 256;

/** Scales a vector to unit length in place (float64 norm over the float32 components, in order). */
function scaleToUnit(v: Float32Array): void {
  let norm = 0;
  for (let d = 0; d < v.length; d++) norm += v[d]! * v[d]!;
  const inv = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  for (let d = 0; d < v.length; d++) v[d]! *= inv;
}

/** Writes `count` passage-major vectors (passages from..from+count-1) into the dimension-major matrix. */
function writeBlock(matrix: Float32Array, n: number, from: number, count: number, block: Float32Array, dims: number): void {
  for (let d = 0; d < dims; d++) {
    const row = d * n + from;
    for (let s = 0; s < count; s++) matrix[row + s] = block[s * dims + d]!;
  }
}

/** The parts of a built retriever (see HybridRetriever.parts). */
export interface RetrieverParts {
  readonly bm25: Bm25Parts;
  /** Dimension-major unit vectors, or null when the build ran without an embedder. */
  readonly vectors: Float32Array | null;
  /** The embedding space of `vectors` (Embedder.id). */
  readonly embedderId: string | null;
  readonly degradedReason?: string;
}

/**
 * BM25 + hashing-embedder hybrid. The gate reads the raw signals on each result;
 * the normalised fusion is used only to rank (normalising within a result set
 * makes the top hit 1.0 however bad it is, so it can never refuse — seed §Two).
 */
export class HybridRetriever {
  private constructor(
    readonly chunks: readonly Chunk[],
    private readonly bm25: Bm25Index,
    private readonly embedder: Embedder | null,
    /** Dimension-major matrix: vectors[d * n + i] is passage i's component d. */
    private readonly vectors: Float32Array | null,
    private readonly buildDegradedReason: string | undefined,
  ) {}

  static async build(chunks: readonly Chunk[], embedder: Embedder | null): Promise<HybridRetriever> {
    const n = chunks.length;
    // One pass, one tokenization per passage for both signals when the embedder reads index terms
    // (issue 11: tokenizing twice and a vector object per passage were most of the build at 100k).
    const termEmbedder = embedder && isTermEmbedder(embedder) ? embedder : null;
    const dims = termEmbedder?.dimensions ?? 0;
    const vectors = termEmbedder ? new Float32Array(dims * n) : null;
    // Vectors are made passage-major in a block and written dimension-major a block at a time: one passage's
    // components are n floats apart in the matrix, and writing them one by one missed the cache on every write.
    const block = new Float32Array(TRANSPOSE_BLOCK * dims);
    const embed = termEmbedder?.termEmbedding();
    const lexical = new Bm25Builder(n);
    for (let i = 0; i < n; i++) {
      const terms = tokenize(indexText(chunks[i]!));
      const ids = lexical.add(i, terms);
      if (embed && vectors) {
        const slot = i % TRANSPOSE_BLOCK;
        const v = block.subarray(slot * dims, (slot + 1) * dims);
        v.fill(0);
        scaleToUnit(embed(terms, ids, v));
        if (slot === TRANSPOSE_BLOCK - 1 || i === n - 1) writeBlock(vectors, n, i - slot, slot + 1, block, dims);
      }
    }
    const bm25 = new Bm25Index(lexical.finish());
    if (!embedder) return new HybridRetriever(chunks, bm25, null, null, 'no embedder configured');
    if (vectors) return new HybridRetriever(chunks, bm25, embedder, vectors, undefined);
    try {
      const embedded = await embedder.embed(chunks.map(indexText));
      const matrix = new Float32Array(embedder.dimensions * n);
      embedded.forEach((v, i) => {
        const unit = Float32Array.from(v);
        scaleToUnit(unit);
        writeBlock(matrix, n, i, 1, unit, unit.length);
      });
      return new HybridRetriever(chunks, bm25, embedder, matrix, undefined);
    } catch (error) {
      if (!(error instanceof EmbedderUnavailableError)) throw error;
      return new HybridRetriever(chunks, bm25, null, null, `embedder unavailable at index time: ${error.message}`);
    }
  }

  /**
   * A retriever from the parts of one built earlier (an index snapshot): nothing is tokenized or embedded.
   * The embedder must be the one the vectors were made with; the caller checks its id.
   */
  static restore(chunks: readonly Chunk[], parts: RetrieverParts, embedder: Embedder | null): HybridRetriever {
    if (parts.vectors && !embedder) throw new Error('a snapshot with vectors needs its embedder to embed questions');
    return new HybridRetriever(chunks, new Bm25Index(parts.bm25), parts.vectors ? embedder : null, parts.vectors, parts.degradedReason);
  }

  /** What the index is made of, for a snapshot. */
  get parts(): RetrieverParts {
    return {
      bm25: this.bm25.parts,
      vectors: this.vectors,
      embedderId: this.vectors ? (this.embedder?.id ?? null) : null,
      ...(this.buildDegradedReason ? { degradedReason: this.buildDegradedReason } : {}),
    };
  }

  /** Inverse document frequency of an index term (the gate weighs rare terms more). */
  idf(term: string): number {
    return this.bm25.idf(term);
  }

  /** Every index term (the library's vocabulary, as stems and names). */
  terms(): IterableIterator<string> {
    return this.bm25.terms();
  }

  /** Whether any passage contains this index term. */
  knows(term: string): boolean {
    return this.bm25.has(term);
  }

  get size(): number {
    return this.chunks.length;
  }

  /** Unnormalised cosine of the query against every passage, or null when degraded. */
  private async denseScores(query: string): Promise<{ scores: Float32Array | null; reason?: string }> {
    if (!this.embedder || !this.vectors) return { scores: null, reason: this.buildDegradedReason ?? 'no embedder' };
    let q: Float32Array;
    try {
      [q] = (await this.embedder.embed([query])) as [Float32Array];
    } catch (error) {
      if (error instanceof EmbedderUnavailableError) return { scores: null, reason: `embedder unavailable: ${error.message}` };
      throw error;
    }
    let norm = 0;
    for (let d = 0; d < q.length; d++) norm += q[d]! * q[d]!;
    const inv = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    const n = this.chunks.length;
    const scores = new Float32Array(n);
    // Sparse in the query: a hashing vector has a few dozen non-zero components,
    // so this is |query| × n multiply-adds over contiguous memory.
    for (let d = 0; d < q.length; d++) {
      const w = q[d]! * inv;
      if (w === 0) continue;
      const row = this.vectors.subarray(d * n, (d + 1) * n);
      for (let i = 0; i < n; i++) scores[i]! += w * row[i]!;
    }
    return { scores };
  }

  async search(query: string, depth = DEFAULT_DEPTH): Promise<Retrieval> {
    const lexical = this.bm25.scores(query);
    const { scores: dense, reason } = await this.denseScores(query);
    const n = this.chunks.length;
    let maxLex = 0;
    let maxDense = 0;
    for (let i = 0; i < n; i++) {
      if (lexical[i]! > maxLex) maxLex = lexical[i]!;
      if (dense && dense[i]! > maxDense) maxDense = dense[i]!;
    }
    const lexW = dense ? LEXICAL_WEIGHT : 1;
    const top: { i: number; fused: number }[] = [];
    for (let i = 0; i < n; i++) {
      const l = maxLex > 0 ? lexical[i]! / maxLex : 0;
      const d = dense && maxDense > 0 ? Math.max(0, dense[i]!) / maxDense : 0;
      const fused = lexW * l + DENSE_WEIGHT * d * (dense ? 1 : 0);
      if (fused <= 0) continue;
      if (top.length < depth || fused > top[top.length - 1]!.fused) {
        let at = top.length;
        while (at > 0 && top[at - 1]!.fused < fused) at--;
        top.splice(at, 0, { i, fused });
        if (top.length > depth) top.pop();
      }
    }
    const results = top.map(({ i, fused }) => ({
      chunk: this.chunks[i]!,
      bm25: lexical[i]!,
      dense: dense ? dense[i]! : null,
      fused,
    }));
    return dense ? { query, results, degraded: false } : { query, results, degraded: true, degradedReason: reason ?? 'embedder unavailable' };
  }
}
