import { describe, expect, it } from 'vitest';
import { Bm25Index } from './bm25.ts';
import { tokenize } from './tokenizer.ts';

// Three passages, hand-tokenised: d0 [pool, ceiling] (len 2), d1 [pool, pool, lag] (len 3), d2 [disk] (len 1); avgdl = 2.
const index = new Bm25Index(['pool ceiling', 'pool pool lag', 'disk']);

describe('BM25 (k1 = 1.5, b = 0.75), unnormalised', () => {
  it('idf is ln(1 + (N - df + 0.5) / (df + 0.5))', () => {
    expect(index.idf(tokenize('ceiling')[0]!)).toBeCloseTo(Math.log(1 + 2.5 / 1.5), 6); // 0.980829
    expect(index.idf(tokenize('pool')[0]!)).toBeCloseTo(Math.log(1.6), 6); // 0.470004
  });

  it('scores a rare term in an average-length passage as its idf', () => {
    // tf = 1, |d| = avgdl → norm 1 → idf · 1 · 2.5 / (1 + 1.5) = idf
    expect(index.scores('ceiling')[0]).toBeCloseTo(0.980829, 5);
    expect(index.scores('ceiling')[1]).toBe(0);
  });

  it('saturates term frequency and penalises length by hand-computed amounts', () => {
    const s = index.scores('pool');
    expect(s[0]).toBeCloseTo(0.470004, 5);
    // tf 2, norm = 0.25 + 0.75 · 3/2 = 1.375 → idf · 5 / (2 + 2.0625)
    expect(s[1]).toBeCloseTo(0.470004 * (5 / 4.0625), 5); // 0.578466
    expect(s[2]).toBe(0);
  });

  it('sums over distinct query terms and is not normalised to the top hit', () => {
    const s = index.scores('pool ceiling ceiling');
    expect(s[0]).toBeCloseTo(0.980829 + 0.470004, 5);
    expect(Math.max(...s)).toBeGreaterThan(1); // a normalised score could never exceed 1
  });
});

describe('tokenize', () => {
  it('indexes an identifier and its parts: kebab-case and CamelCase alert names alike (S-018)', () => {
    expect(tokenize('orders-db')).toEqual(['orders-db', 'order', 'db']);
    expect(tokenize('DiskUsageHigh alert')).toEqual(['diskusagehigh', 'disk', 'usag', 'high', 'alert']);
    expect(tokenize('PostgreSQL')).toEqual(['postgresql', 'postgr', 'sql']);
    // An acronym inside an alert name no longer hides its words (S-032).
    expect(tokenize('OOMKilled')).toEqual(['oomkil', 'oom', 'kill']);
  });
});
