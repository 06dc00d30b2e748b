import { describe, expect, it } from 'vitest';
import { decodeWordVectors, encodeWordVectors, plainWords, unitCosine } from './word-vectors.ts';

describe('word vectors file', () => {
  it('keeps each word’s direction to a byte per component', () => {
    const vectors = decodeWordVectors(
      encodeWordVectors({ package: 'test' }, [
        ['slow', [3, 4]],
        ['latency', [4, 3]],
      ]),
    );
    const slow = vectors.vectorOf('slow')!;
    expect(slow[0]).toBeCloseTo(0.6, 2);
    expect(unitCosine(slow, vectors.vectorOf('latency')!)).toBeCloseTo(0.96, 2);
    expect(vectors.vectorOf('disk')).toBeUndefined();
    expect(vectors.header.source).toEqual({ package: 'test' });
  });

  it('says what is wrong with a file that is not one, and how to regenerate it', () => {
    const good = encodeWordVectors({ package: 'test' }, [['slow', [1, 0]]]);
    expect(() => decodeWordVectors(new Uint8Array([1]))).toThrow(/too short.*npm run vectors/);
    expect(() => decodeWordVectors(good.subarray(0, good.length - 1))).toThrow(/expected 1 vectors of 2 components/);
    expect(() => decodeWordVectors(new Uint8Array([2, 0, 0, 0, 123, 125]))).toThrow(/not a version-1/);
  });

  it('keys plain words, splitting identifiers at their punctuation', () => {
    expect(plainWords('Checkout-API is slow; p99 at 2s')).toEqual(['checkout', 'api', 'is', 'slow', 'p99', 'at']);
  });

  it('leaves no fragments: a contraction is expanded as the tokenizer expands it, a word led by a digit is no word (S-050)', () => {
    expect(plainWords("what's the TTL")).toEqual(['what', 'the', 'ttl']);
    expect(plainWords("why doesn't it drain; we're seeing 429s and 5xx")).toEqual(['why', 'does', 'not', 'it', 'drain', 'we', 'seeing', 'and']);
  });
});
