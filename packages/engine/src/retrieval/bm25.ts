import { tokenize } from './tokenizer.ts';

/** Okapi BM25 parameters (seed §Four: k1 = 1.5, b = 0.75). */
export const BM25_K1 = 1.5;
export const BM25_B = 0.75;

/**
 * BM25 over an inverted index. Scores are UNNORMALISED on purpose: the evidence
 * gate needs the absolute strength of a match, and normalising within a result
 * set makes the top hit 1.0 whether the match was excellent or hopeless (seed §Two).
 */
/** The passages holding one term, ascending, with the term's count in each. */
export interface Posting {
  readonly doc: Int32Array;
  readonly tf: Float32Array;
}

export interface Bm25Parts {
  /** Index terms per passage. */
  readonly lengths: Float32Array;
  readonly avgLength: number;
  /** Term → posting, terms in the order they first occur in the corpus. */
  readonly postings: ReadonlyMap<string, Posting>;
}

/**
 * Builds the postings one passage at a time, passages in order. Counting goes through term numbers and
 * typed arrays, not a Map per passage (issue 11: the build at 100k passages was 2.2× MiniSearch's).
 */
export class Bm25Builder {
  private readonly ids = new Map<string, number>();
  private lastDoc = new Int32Array(1024).fill(-1);
  private count = new Int32Array(1024);
  /** Each passage's distinct terms and their counts, passage after passage (passage i from docStart[i]). */
  private pairTerm = new Int32Array(1 << 16);
  private pairTf = new Int32Array(1 << 16);
  private pairs = 0;
  private readonly docStart: Int32Array;
  private readonly lengths: Float32Array;
  private total = 0;
  /** The numbers of the last passage's terms, in order (`add` returns a view of it). */
  private termIds = new Int32Array(256);

  constructor(private readonly size: number) {
    this.lengths = new Float32Array(size);
    this.docStart = new Int32Array(size + 1);
  }

  /**
   * Passage `i`'s index terms; call with i = 0, 1, 2, … in order. Returns each term's number (the same
   * number for the same term throughout this build), valid until the next call.
   */
  add(i: number, terms: readonly string[]): Int32Array {
    this.lengths[i] = terms.length;
    this.total += terms.length;
    this.docStart[i] = this.pairs;
    if (this.termIds.length < terms.length) this.termIds = new Int32Array(terms.length * 2);
    const termIds = this.termIds;
    const first = this.pairs;
    for (let k = 0; k < terms.length; k++) {
      const t = terms[k]!;
      let id = this.ids.get(t);
      if (id === undefined) {
        id = this.ids.size;
        this.ids.set(t, id);
        if (id >= this.lastDoc.length) this.grow();
      }
      termIds[k] = id;
      if (this.lastDoc[id] !== i) {
        this.lastDoc[id] = i;
        this.count[id] = 1;
        if (this.pairs === this.pairTerm.length) this.growPairs();
        this.pairTerm[this.pairs++] = id;
      } else this.count[id]!++;
    }
    for (let p = first; p < this.pairs; p++) this.pairTf[p] = this.count[this.pairTerm[p]!]!;
    this.docStart[i + 1] = this.pairs;
    return termIds.subarray(0, terms.length);
  }

  private grow(): void {
    const lastDoc = new Int32Array(this.lastDoc.length * 2).fill(-1);
    lastDoc.set(this.lastDoc);
    const count = new Int32Array(this.count.length * 2);
    count.set(this.count);
    this.lastDoc = lastDoc;
    this.count = count;
  }

  private growPairs(): void {
    const term = new Int32Array(this.pairTerm.length * 2);
    term.set(this.pairTerm);
    const tf = new Int32Array(this.pairTf.length * 2);
    tf.set(this.pairTf);
    this.pairTerm = term;
    this.pairTf = tf;
  }

  /** Every posting in one pair of arrays, each term's slice ascending by passage (a counting sort by term). */
  finish(): Bm25Parts {
    const terms = this.ids.size;
    const start = new Int32Array(terms + 1);
    for (let p = 0; p < this.pairs; p++) start[this.pairTerm[p]! + 1]!++;
    for (let t = 0; t < terms; t++) start[t + 1]! += start[t]!;
    const doc = new Int32Array(this.pairs);
    const tf = new Float32Array(this.pairs);
    const next = start.slice(0, terms);
    for (let i = 0; i < this.size; i++) {
      for (let p = this.docStart[i]!; p < this.docStart[i + 1]!; p++) {
        const at = next[this.pairTerm[p]!]!++;
        doc[at] = i;
        tf[at] = this.pairTf[p]!;
      }
    }
    const postings = new Map<string, Posting>();
    for (const [t, id] of this.ids) postings.set(t, { doc: doc.subarray(start[id]!, start[id + 1]!), tf: tf.subarray(start[id]!, start[id + 1]!) });
    return { lengths: this.lengths, avgLength: this.size ? this.total / this.size : 0, postings };
  }
}

export class Bm25Index {
  private readonly postings: ReadonlyMap<string, Posting>;
  private readonly lengths: Float32Array;
  private readonly avgLength: number;
  readonly size: number;
  readonly k1: number;
  readonly b: number;

  /** Over raw texts, or over the parts of an index built (or restored) elsewhere. */
  constructor(source: readonly string[] | Bm25Parts, k1 = BM25_K1, b = BM25_B) {
    let parts: Bm25Parts;
    if (Array.isArray(source)) {
      const builder = new Bm25Builder(source.length);
      source.forEach((text: string, i: number) => builder.add(i, tokenize(text)));
      parts = builder.finish();
    } else parts = source as Bm25Parts;
    this.k1 = k1;
    this.b = b;
    this.size = parts.lengths.length;
    this.lengths = parts.lengths;
    this.avgLength = parts.avgLength;
    this.postings = parts.postings;
  }

  /** What the index is made of (a snapshot stores these and restores them with fromParts). */
  get parts(): Bm25Parts {
    return { lengths: this.lengths, avgLength: this.avgLength, postings: this.postings };
  }

  /** Every index term. */
  terms(): IterableIterator<string> {
    return this.postings.keys();
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
