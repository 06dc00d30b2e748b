import type { Embedder } from './embedder.ts';
import { tokenize } from './tokenizer.ts';

export const HASHING_DIMENSIONS = 768;

/** 32-bit FNV-1a: deterministic across runs and machines (no model download, no seed). */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * A 768-dimension feature-hashing embedder: stemmed terms, adjacent-term bigrams
 * and character trigrams of each term, each hashed to a signed bucket, with
 * sublinear term frequency, L2-normalised. The trigrams give it the fuzzy,
 * morphological proximity BM25 lacks ("saturated" ~ "saturation"), so the two
 * signals disagree in useful ways.
 */
export class HashingEmbedder implements Embedder {
  readonly id = `hashing-${HASHING_DIMENSIONS}-v1`;
  readonly dimensions = HASHING_DIMENSIONS;
  /**
   * Measured rather than assumed (seed ADR-0008): a question and its own correction
   * retry share most terms and score well above this, which is exactly why a
   * correction must bypass the cache (D-006) rather than rely on the threshold.
   */
  readonly cacheSimilarityThreshold = 0.92;

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    return texts.map((t) => this.embedOne(t));
  }

  embedOne(text: string): Float32Array {
    const counts = new Map<number, number>();
    const add = (feature: string, weight: number) => {
      const h = fnv1a(feature);
      const bucket = h % HASHING_DIMENSIONS;
      const sign = (h >>> 31) & 1 ? -1 : 1;
      counts.set(bucket, (counts.get(bucket) ?? 0) + sign * weight);
    };
    const terms = tokenize(text);
    const tf = new Map<string, number>();
    for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const [t, n] of tf) {
      const w = 1 + Math.log(n);
      add(`w:${t}`, w);
      const padded = `<${t}>`;
      for (let i = 0; i + 3 <= padded.length; i++) add(`c:${padded.slice(i, i + 3)}`, 0.25 * w);
    }
    for (let i = 0; i + 1 < terms.length; i++) add(`b:${terms[i]} ${terms[i + 1]}`, 0.5);
    const v = new Float32Array(HASHING_DIMENSIONS);
    let norm = 0;
    for (const [bucket, value] of counts) {
      v[bucket] = value;
      norm += value * value;
    }
    if (norm > 0) {
      const inv = 1 / Math.sqrt(norm);
      for (let i = 0; i < v.length; i++) v[i]! *= inv;
    }
    return v;
  }
}
