import { describe, expect, it } from 'vitest';
import { computeMetrics, type Outcome } from './metrics.ts';
import { parseQuestionsJsonl } from './question-set.ts';

describe('external question files', () => {
  it('reports every malformed line with its number and keeps the good ones', () => {
    const text = [
      '{"question":"What is the pool ceiling for orders-db?","label":"answerable","doc":"a.md"}',
      'not json',
      '{"question":"","label":"answerable"}',
      '{"question":"Who approves?","label":"maybe"}',
      '',
      '{"id":"x","question":"DNS?","label":"unanswerable"}',
      '{"id":"x","question":"DNS again?","label":"unanswerable"}',
    ].join('\n');
    const { questions, bad } = parseQuestionsJsonl(text);
    expect(questions.map((q) => q.id)).toEqual(['q1', 'x']);
    expect(bad.map((b) => b.line)).toEqual([2, 3, 4, 7]);
    expect(bad[0]!.message).toMatch(/not JSON/);
    expect(bad[2]!.message).toMatch(/label/);
    expect(bad[3]!.message).toMatch(/duplicate id "x"/);
  });

  it('refuses a misspelt or miscased field of the format, naming the one meant; keeps other fields as notes (S-147)', () => {
    const text = [
      '{"question":"q1","label":"answerable","evidense":"the pool ceiling is 100"}',
      '{"question":"q2","label":"answerable","Evidence":"the pool ceiling is 100"}',
      '{"question":"q3","label":"answerable","evidence":"the pool ceiling is 100","why":"stated in the runbook","notes":"seen"}',
    ].join('\n');
    const { questions, bad } = parseQuestionsJsonl(text);
    expect(bad).toEqual([
      { line: 1, message: expect.stringMatching(/^field "evidense" is not one this format reads: did you mean "evidence"\?/) },
      { line: 2, message: expect.stringMatching(/^field "Evidence" is not one this format reads: did you mean "evidence"\?/) },
    ]);
    expect(questions.map((q) => q.id)).toEqual(['q3']);
  });
});

describe('metrics', () => {
  const o = (label: Outcome['label'], verdict: Outcome['verdict'], band: Outcome['band'], rank: number | null = null): Outcome => ({
    id: Math.random().toString(36),
    mechanism: label === 'answerable' ? 'a' : 'u',
    label,
    verdict,
    band,
    rank,
    hasExpected: label === 'answerable',
    corpus: 'c',
    answerability: null,
    source: label === 'answerable' && verdict !== 'refused' ? 'right' : null,
    stepsCovered: null,
  });
  it('counts partial on an unanswerable question as a false answer, and hand-computed MRR and recall@6', () => {
    const m = computeMetrics([
      o('unanswerable', 'partial', 'ambiguous'),
      o('unanswerable', 'refused', 'insufficient'),
      o('unanswerable', 'refused', 'ambiguous'),
      o('unanswerable', 'answered', 'sufficient'),
      o('answerable', 'refused', 'ambiguous', 2),
      o('answerable', 'answered', 'sufficient', 1),
      o('answerable', 'partial', 'ambiguous', 8),
      o('answerable', 'answered', 'sufficient', null),
    ]);
    expect(m.falseAnswerRate).toBe(2 / 4);
    expect(m.falseRefusalRate).toBe(1 / 4);
    expect(m.deferralRate).toBe(4 / 8);
    expect(m.mrr).toBeCloseTo((1 / 2 + 1 + 1 / 8 + 0) / 4, 10);
    expect(m.recallAt6).toBe(2 / 4);
  });
});
