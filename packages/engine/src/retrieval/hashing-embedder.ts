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
    return this.embedTerms(tokenize(text), new Float32Array(HASHING_DIMENSIONS));
  }

  /**
   * The vector of an already tokenized text, written into `into` (zeroed by the caller): the index build
   * tokenizes each passage once for BM25 and for this, and reuses one buffer (issue 11 — the build spent
   * most of its time making feature strings to hash, and collecting a vector per passage).
   *
   * Bit-for-bit the arithmetic it replaced: features hashed as if spelled `w:term`, `c:tri`, `b:one two`;
   * each bucket summed in float64 in the same order; the norm summed over buckets in first-touch order.
   */
  embedTerms(terms: readonly string[], into: Float32Array): Float32Array {
    const feats = this.termFeatures;
    feats.length = terms.length;
    for (let i = 0; i < terms.length; i++) feats[i] = this.featuresOf(terms[i]!);
    return this.embedFeatures(terms, feats, into);
  }

  /**
   * embedTerms for one index build whose terms are numbered (`ids[k]` is `terms[k]`'s number, the same
   * number for the same term on every call): a term's features are found by its number, not by hashing
   * its string again (issue 11). Each call of this method starts a new numbering.
   */
  termEmbedding(): (terms: readonly string[], ids: ArrayLike<number>, into: Float32Array) => Float32Array {
    const byId: TermFeatures[] = [];
    const feats: TermFeatures[] = [];
    return (terms, ids, into) => {
      feats.length = terms.length;
      for (let i = 0; i < terms.length; i++) {
        const id = ids[i]!;
        feats[i] = byId[id] ??= this.featuresOf(terms[i]!);
      }
      return this.embedFeatures(terms, feats, into);
    };
  }

  private embedFeatures(terms: readonly string[], feats: readonly TermFeatures[], into: Float32Array): Float32Array {
    const acc = this.acc;
    const order = this.order;
    let touched = 0;
    const add = (code: number, weight: number) => {
      const bucket = code < 0 ? ~code : code;
      const value = code < 0 ? -weight : weight;
      if (this.seen[bucket] === 0) {
        this.seen[bucket] = 1;
        order[touched++] = bucket;
        acc[bucket] = value;
      } else acc[bucket]! += value;
    };
    // Term frequencies without a Map: each distinct term's features carry a count stamped with this call.
    const call = ++this.calls;
    const distinct = this.distinct;
    distinct.length = 0;
    for (let i = 0; i < feats.length; i++) {
      const f = feats[i]!;
      if (f.call !== call) {
        f.call = call;
        f.count = 1;
        distinct.push(f);
      } else f.count++;
    }
    for (const f of distinct) {
      const w = 1 + Math.log(f.count);
      add(f.codes[0]!, w);
      const tri = 0.25 * w;
      for (let i = 1; i < f.codes.length; i++) add(f.codes[i]!, tri);
    }
    for (let i = 0; i + 1 < terms.length; i++) {
      let h = feats[i]!.bigramPrefix;
      const next = terms[i + 1]!;
      for (let j = 0; j < next.length; j++) h = Math.imul(h ^ next.charCodeAt(j), FNV_PRIME);
      add(codeOf(h >>> 0), 0.5);
    }
    let norm = 0;
    for (let k = 0; k < touched; k++) {
      const bucket = order[k]!;
      const value = acc[bucket]!;
      into[bucket] = value;
      norm += value * value;
      this.seen[bucket] = 0;
    }
    if (norm > 0) {
      const inv = 1 / Math.sqrt(norm);
      for (let k = 0; k < touched; k++) into[order[k]!]! *= inv;
    }
    return into;
  }

  private readonly acc = new Float64Array(HASHING_DIMENSIONS);
  private readonly seen = new Uint8Array(HASHING_DIMENSIONS);
  private readonly order = new Int32Array(HASHING_DIMENSIONS);
  private readonly features = new Map<string, TermFeatures>();
  private readonly termFeatures: TermFeatures[] = [];
  private readonly distinct: TermFeatures[] = [];
  private calls = 0;

  /** A term's word and trigram buckets, and its bigram hash state, computed once per distinct term. */
  private featuresOf(term: string): TermFeatures {
    let f = this.features.get(term);
    if (f) return f;
    const padded = `<${term}>`;
    const codes = new Int32Array(1 + Math.max(0, padded.length - 2));
    codes[0] = codeOf(fnvContinue(FNV_W, term) >>> 0);
    for (let i = 0; i + 3 <= padded.length; i++) codes[1 + i] = codeOf(fnvContinue(FNV_C, padded.slice(i, i + 3)) >>> 0);
    f = { codes, bigramPrefix: Math.imul(fnvContinue(FNV_B, term) ^ 0x20, FNV_PRIME), call: 0, count: 0 };
    if (this.features.size > 500_000) this.features.clear();
    this.features.set(term, f);
    return f;
  }
}

interface TermFeatures {
  /** Bucket, or ~bucket when the feature's sign is negative: the word first, then its trigrams in order. */
  readonly codes: Int32Array;
  /** FNV state after `b:term ` (the bigram's first term and the space). */
  readonly bigramPrefix: number;
  /** Scratch for embedTerms' term frequencies: the call that last counted this term, and its count there. */
  call: number;
  count: number;
}

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** FNV-1a state continued over `text`, not yet made unsigned. */
function fnvContinue(state: number, text: string): number {
  let h = state;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), FNV_PRIME);
  return h;
}
const FNV_W = fnvContinue(FNV_OFFSET, 'w:');
const FNV_C = fnvContinue(FNV_OFFSET, 'c:');
const FNV_B = fnvContinue(FNV_OFFSET, 'b:');

/** A feature's bucket and sign as one integer (see TermFeatures.codes). */
function codeOf(unsignedHash: number): number {
  const bucket = unsignedHash % HASHING_DIMENSIONS;
  return (unsignedHash >>> 31) & 1 ? ~bucket : bucket;
}
