/**
 * The dense-signal contract. Async so a remote embedding service (seed 004 #15:
 * timeout, retries, batching) fits behind the same interface as the hashing one.
 */
export interface Embedder {
  /** Identifies the embedding space; a cache or index built with another id is not comparable. */
  readonly id: string;
  readonly dimensions: number;
  /**
   * Cosine similarity at or above which two prompts count as the same for the
   * semantic cache. It belongs to the embedder, not the cache (seed ADR-0008): a
   * module-level constant was wrong in both directions at once.
   */
  readonly cacheSimilarityThreshold: number;
  /** Unit-length vectors, one per text, in order. Throws EmbedderUnavailableError when it cannot serve. */
  embed(texts: readonly string[]): Promise<Float32Array[]>;
}

/** The embedder could not serve; retrieval degrades to lexical-only and says so. */
export class EmbedderUnavailableError extends Error {
  override readonly name = 'EmbedderUnavailableError';
  /**
   * The service answered and refused THIS request (a 4xx no retry fixes, e.g. an input too long for its model): it
   * came back at once, and another request may be served. Not an outage to remember for the next one.
   */
  readonly rejected: boolean;
  constructor(message: string, options: { readonly rejected?: boolean } = {}) {
    super(message);
    this.rejected = options.rejected ?? false;
  }
}

/** Cosine of two vectors (unnormalised inputs allowed): typed arrays from the embedder, plain arrays from a table. */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}
