import type { Chunk, ScoredChunk } from '../types.ts';
import { Bm25Index } from './bm25.ts';
import { type Embedder, EmbedderUnavailableError } from './embedder.ts';

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
  return `${chunk.doc.replace(/\.(md|markdown)$/i, '').replace(/[/_]+/g, ' ')}\n${chunk.docTitle}\n${chunk.path?.length ? `${chunk.path.join('\n')}\n` : ''}${chunk.heading}\n${chunk.text}`;
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
    const texts = chunks.map(indexText);
    const bm25 = new Bm25Index(texts);
    if (!embedder) return new HybridRetriever(chunks, bm25, null, null, 'no embedder configured');
    try {
      const embedded = await embedder.embed(texts);
      const n = chunks.length;
      const dims = embedder.dimensions;
      const vectors = new Float32Array(dims * n);
      embedded.forEach((v, i) => {
        let norm = 0;
        for (let d = 0; d < dims; d++) norm += v[d]! * v[d]!;
        const inv = norm > 0 ? 1 / Math.sqrt(norm) : 0;
        for (let d = 0; d < dims; d++) vectors[d * n + i] = v[d]! * inv;
      });
      return new HybridRetriever(chunks, bm25, embedder, vectors, undefined);
    } catch (error) {
      if (!(error instanceof EmbedderUnavailableError)) throw error;
      return new HybridRetriever(chunks, bm25, null, null, `embedder unavailable at index time: ${error.message}`);
    }
  }

  /** Inverse document frequency of an index term (the gate weighs rare terms more). */
  idf(term: string): number {
    return this.bm25.idf(term);
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
