import { describe, expect, it } from 'vitest';
import { refusalsAt, refusalsAtEachCorpusCut, separation } from './separation.ts';

const row = (label: string, answerability: number | null) => ({ label, answerability });

describe('separation (held-out AUC)', () => {
  it('is 1 when every answerable question rates above every unanswerable one, 0 when below, ½ for a tie', () => {
    expect(separation([row('answerable', 0.9), row('answerable', 0.8), row('unanswerable', 0.2)])).toBe(1);
    expect(separation([row('answerable', 0.1), row('unanswerable', 0.2)])).toBe(0);
    expect(separation([row('answerable', 0.5), row('unanswerable', 0.5)])).toBe(0.5);
  });

  it('counts pairs: one unanswerable question above one of two answerable ones is ½', () => {
    expect(separation([row('answerable', 0.9), row('unanswerable', 0.5), row('answerable', 0.3)])).toBe(0.5);
  });

  it('reads an unrated question as refused, and has no figure without both labels', () => {
    expect(separation([row('answerable', null), row('unanswerable', 0.1)])).toBe(0);
    expect(separation([row('answerable', 0.4)])).toBeNaN();
  });
});

describe('refusalsAtEachCorpusCut (the per-corpus line no deployment has)', () => {
  const at = (corpus: string, label: string, answerability: number) => ({ corpus, label, answerability });
  // Corpus b's ratings sit higher than a's: one line for both refuses b's answerable question with a's unanswerable
  // one's cut, or lets b's unanswerable one through.
  const rows = [at('a', 'unanswerable', 0.2), at('a', 'answerable', 0.3), at('b', 'unanswerable', 0.6), at('b', 'answerable', 0.7)];

  it('gives each corpus its own cut, so a shift between corpora costs nothing', () => {
    expect(refusalsAtEachCorpusCut(rows, 0)).toBe(0);
    expect(refusalsAt(rows, 0)).toBe(0.5);
  });

  it('pools by answerable question, and a corpus with no unanswerable question refuses nothing', () => {
    const more = [...rows, at('c', 'answerable', 0.01), at('c', 'answerable', 0.02)];
    expect(refusalsAtEachCorpusCut(more, 0)).toBe(0);
    // a refuses one of its two answerable questions, b neither of its two: one in four pooled.
    const sized = [
      at('a', 'unanswerable', 0.5),
      at('a', 'answerable', 0.4),
      at('a', 'answerable', 0.8),
      at('b', 'answerable', 0.9),
      at('b', 'answerable', 0.1),
    ];
    expect(refusalsAtEachCorpusCut(sized, 0)).toBe(0.25);
  });
});
