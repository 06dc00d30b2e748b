import { describe, expect, it } from 'vitest';
import { pairedDifference, type RatedRow } from './paired-difference.ts';
import { separation } from './separation.ts';

const rows = (shift: (corpus: number, i: number) => number): RatedRow[] =>
  Array.from({ length: 6 }, (_, c) =>
    Array.from({ length: 40 }, (_, i) => ({
      corpus: `c${c}`,
      id: `q${i}`,
      label: i % 2 ? 'answerable' : 'unanswerable',
      answerability: Math.min(1, Math.max(0, ((i * 37) % 40) / 40 + (i % 2 ? 0.1 : 0) + shift(c, i))),
    })),
  ).flat();

describe('pairedDifference (how much of a difference between two runs noise could give)', () => {
  it('gives no difference and a zero-width interval for the same run twice', () => {
    const base = rows(() => 0);
    expect(pairedDifference(base, base, separation)).toMatchObject({ difference: 0, low: 0, high: 0, corpora: 6, questions: 240 });
  });

  it('puts a gain made on every corpus above zero, and a gain made on one corpus only inside an interval that reaches zero', () => {
    const base = rows(() => 0);
    const everywhere = pairedDifference(
      base,
      rows((_, i) => (i % 2 ? 0.15 : 0)),
      separation,
    );
    expect(everywhere.difference).toBeGreaterThan(0);
    expect(everywhere.low).toBeGreaterThan(0);
    const one = pairedDifference(
      base,
      rows((c, i) => (c === 0 && i % 2 ? 0.4 : 0)),
      separation,
    );
    expect(one.difference).toBeGreaterThan(0);
    expect(one.low).toBeLessThanOrEqual(0);
  });

  it('pairs questions by corpus and id, leaves out what one run lacks, and refuses two runs with nothing in common', () => {
    const base = rows(() => 0);
    expect(pairedDifference(base, base.slice(0, 100), separation).questions).toBe(100);
    expect(() =>
      pairedDifference(
        base,
        base.map((r) => ({ ...r, corpus: `other-${r.corpus}` })),
        separation,
      ),
    ).toThrow(/share no question/);
  });
});
