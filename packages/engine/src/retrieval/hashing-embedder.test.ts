import { describe, expect, it } from 'vitest';
import { cosine } from './embedder.ts';
import { fnv1a, HASHING_DIMENSIONS, HashingEmbedder } from './hashing-embedder.ts';

const embedder = new HashingEmbedder();

describe('hashing embedder', () => {
  it('FNV-1a matches the published test vectors', () => {
    expect(fnv1a('')).toBe(0x811c9dc5);
    expect(fnv1a('a')).toBe(0xe40c292c);
    expect(fnv1a('foobar')).toBe(0xbf9cf968);
  });

  it('places one word at its hashed bucket with the hand-computed weight', () => {
    // "pool": the word (weight 1) and four padded trigrams <po, poo, ool, ol> (0.25 each); norm √1.25.
    const v = embedder.embedOne('pool');
    expect(v.length).toBe(HASHING_DIMENSIONS);
    const h = fnv1a('w:pool');
    const sign = (h >>> 31) & 1 ? -1 : 1;
    expect(v[h % HASHING_DIMENSIONS]).toBeCloseTo(sign / Math.sqrt(1.25), 5);
    let norm = 0;
    for (const x of v) norm += x * x;
    expect(norm).toBeCloseTo(1, 5);
  });

  it('is deterministic and unnormalised cosine is 1 for the same text', async () => {
    const [a, b] = await embedder.embed(['orders-db pool saturated', 'orders-db pool saturated']);
    expect(Array.from(a!)).toEqual(Array.from(b!));
    expect(cosine(a!, b!)).toBeCloseTo(1, 6);
  });

  it('ranks a related text above an unrelated one', () => {
    const q = embedder.embedOne('connection pool saturation on the orders database');
    const related = embedder.embedOne('the orders database connection pool is saturated');
    const unrelated = embedder.embedOne('rotate the warehouse label printer ribbon');
    expect(cosine(q, related)).toBeGreaterThan(0.4);
    expect(cosine(q, unrelated)).toBeLessThan(0.15);
  });
});
