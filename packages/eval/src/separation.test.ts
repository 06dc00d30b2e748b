import { describe, expect, it } from 'vitest';
import { separation } from './separation.ts';

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
