import { tokenize } from './tokenizer.ts';

/** Okapi BM25 parameters (seed §Four: k1 = 1.5, b = 0.75). */
export const BM25_K1 = 1.5;
export const BM25_B = 0.75;

/**
 * BM25 over an inverted index. Scores are UNNORMALISED on purpose: the evidence
 * gate needs the absolute strength of a match, and normalising within a result
 * set makes the top hit 1.0 whether the match was excellent or hopeless (seed §Two).
 */
export class Bm25Index {
  private readonly postings = new Map<string, { doc: Int32Array; tf: Float32Array }>();
  private readonly lengths: Float32Array;
  private readonly avgLength: number;
  readonly size: number;

  constructor(texts: readonly string[], readonly k1 = BM25_K1, readonly b = BM25_B) {
    this.size = texts.length;
    this.lengths = new Float32Array(texts.length);
    const building = new Map<string, { doc: number[]; tf: number[] }>();
    let total = 0;
    texts.forEach((text, i) => {
      const terms = tokenize(text);
      this.lengths[i] = terms.length;
      total += terms.length;
      const counts = new Map<string, number>();
      for (const t of terms) counts.set(t, (counts.get(t) ?? 0) + 1);
      for (const [t, n] of counts) {
        let p = building.get(t);
        if (!p) building.set(t, (p = { doc: [], tf: [] }));
        p.doc.push(i);
        p.tf.push(n);
      }
    });
    this.avgLength = texts.length ? total / texts.length : 0;
    for (const [t, p] of building) this.postings.set(t, { doc: Int32Array.from(p.doc), tf: Float32Array.from(p.tf) });
  }

  /** Robertson–Spärck Jones idf with the +1 that keeps it positive. */
  idf(term: string): number {
    const df = this.postings.get(term)?.doc.length ?? 0;
    return Math.log(1 + (this.size - df + 0.5) / (df + 0.5));
  }

  /** Dense score array (one entry per passage). Query terms are de-duplicated. */
  scores(query: string): Float32Array {
    const out = new Float32Array(this.size);
    for (const term of new Set(tokenize(query))) {
      const p = this.postings.get(term);
      if (!p) continue;
      const idf = this.idf(term);
      for (let j = 0; j < p.doc.length; j++) {
        const d = p.doc[j]!;
        const tf = p.tf[j]!;
        const norm = 1 - this.b + (this.b * this.lengths[d]!) / (this.avgLength || 1);
        out[d]! += (idf * tf * (this.k1 + 1)) / (tf + this.k1 * norm);
      }
    }
    return out;
  }

  has(term: string): boolean {
    return this.postings.has(term);
  }
}
