import { describe, expect, it } from 'vitest';
import { HashingEmbedder } from '../retrieval/hashing-embedder.ts';
import { decodeVector, encodeVector } from './vector-code.ts';

describe('vector code', () => {
  it('reads back a question vector exactly, in far fewer characters than JSON numbers', async () => {
    const [vector] = await new HashingEmbedder().embed(['what is the connection pool ceiling of orders-db?']);
    const code = encodeVector(vector!);
    expect(decodeVector(code)).toEqual(vector);
    expect(code.startsWith('s768.')).toBe(true);
    expect(code.length * 5).toBeLessThan(JSON.stringify(Array.from(vector!)).length);
  });

  it('writes a vector with few zeros dense, and reads it back exactly', () => {
    const dense = Float32Array.from({ length: 384 }, (_, i) => Math.sin(i + 1) / 20);
    const code = encodeVector(dense);
    expect(code.startsWith('d')).toBe(true);
    expect(decodeVector(code)).toEqual(dense);
  });

  it('keeps the edges: all zeros, one value, negative values, the empty vector', () => {
    for (const v of [[0, 0, 0, 0], [0, 0, -0.5, 0], [1], [], [-1, 0.25, -0.125, 0]]) {
      expect(Array.from(decodeVector(encodeVector(v)))).toEqual(v.map(Math.fround));
    }
  });

  it('refuses a string it did not write, so a store reads it as no vector', () => {
    for (const bad of ['', 'x', 's10', 'sabc.AAAA', 's2.AAAAAAAAAAAAAAAA', 's1.AgAAAAAAgD8=', 'dAAA']) expect(() => decodeVector(bad)).toThrow();
  });
});
