import { KnowledgeBase, rate } from '@sandscope/engine';
import { beforeAll, describe, expect, it } from 'vitest';
import { type BandRates, fewestToCertify, fitBands, preferenceSplit, preferred, wilsonLower, wilsonUpper } from './bands.ts';
import { calibrateBands, calibrationDecision, calibrationKeep } from './evaluate.ts';
import type { Metrics } from './metrics.ts';
import { parseGaps } from './gaps.ts';
import { generateQuestions } from './generator.ts';
import { type Measured, measureAll } from './measure.ts';
import { readRepoCorpus } from './test-corpus.ts';
import { trainModel } from './train.ts';

const rates = (falseAnswerRate: number, falseRefusalRate: number, nU = 200, nA = 200, deferralRate = 0): BandRates => ({
  nA,
  nU,
  falseAnswerRate,
  falseRefusalRate,
  deferralRate,
});

describe('which bands to keep (sandscope calibrate)', () => {
  it('needs 52 unanswerable questions before any line can show a 5% false-answer budget met', () => {
    expect(fewestToCertify(0.05)).toBe(52);
    expect(wilsonUpper(0, 51)).toBeGreaterThan(0.05);
    expect(wilsonUpper(0, 52)).toBeLessThanOrEqual(0.05);
    // A budget no count can certify is refused, not looped on.
    expect(() => fewestToCertify(0)).toThrow(RangeError);
  });

  it('prefers the false-answer budget met over fewer refusals, the lower false-answer bound when neither meets it, and keeps the incumbent on a tie', () => {
    // Within the budget with many refusals beats over it with few.
    expect(preferred(rates(0.01, 0.6), rates(0.1, 0.05))).toBe(true);
    expect(preferred(rates(0.1, 0.05), rates(0.01, 0.6))).toBe(false);
    // Both within it: fewer refusals.
    expect(preferred(rates(0.01, 0.3), rates(0.01, 0.4))).toBe(true);
    // Neither can show it (43 unanswerable): fewer false answers, whatever it costs in refusals.
    expect(preferred(rates(0, 0.85, 43), rates(1 / 43, 0.75, 43))).toBe(true);
    expect(preferred(rates(2 / 43, 0.7, 43), rates(1 / 43, 0.8, 43))).toBe(false);
    // A tie keeps what is there.
    expect(preferred(rates(0.02, 0.5), rates(0.02, 0.5))).toBe(false);
  });
});

describe('calibrationKeep (S-148)', () => {
  const m = (falseAnswerRate: number, falseRefusalRate: number, unanswerable = 36, answerable = 44) =>
    ({ falseAnswerRate, falseRefusalRate, deferralRate: 0, unanswerable, answerable }) as Metrics;
  it('on too few unanswerable questions to certify, keeps a tighter refit only when it is no worse on either rate', () => {
    // 1 false answer of 36 against 2, at 40 refusals of 44 against 26: the order alone took it.
    expect(calibrationKeep(m(1 / 36, 40 / 44), m(2 / 36, 26 / 44), { certifiable: false, loosens: false })).toBe('shipped');
    expect(calibrationKeep(m(1 / 36, 26 / 44), m(2 / 36, 26 / 44), { certifiable: false, loosens: false })).toBe('refit');
    expect(calibrationKeep(m(2 / 36, 26 / 44), m(2 / 36, 26 / 44), { certifiable: false, loosens: false })).toBe('shipped');
    // A looser one never, on so few.
    expect(calibrationKeep(m(0, 10 / 44), m(2 / 36, 26 / 44), { certifiable: false, loosens: true })).toBe('shipped');
  });

  it('on too few to certify, still takes a tighter refit where the questions show the shipped bands over the false-answer budget', () => {
    // 5 false answers of 44: even the lower bound is over 5%.
    expect(wilsonLower(5 / 44, 44)).toBeGreaterThan(0.05);
    expect(calibrationKeep(m(2 / 44, 0.92, 44, 60), m(5 / 44, 0.58, 44, 60), { certifiable: false, loosens: false })).toBe('refit');
    // 3 of 46 is not shown over it.
    expect(wilsonLower(3 / 46, 46)).toBeLessThan(0.05);
    expect(calibrationKeep(m(1 / 46, 0.97, 46, 66), m(3 / 46, 0.82, 46, 66), { certifiable: false, loosens: false })).toBe('shipped');
  });

  it('on enough to certify, by the order bands are fitted in', () => {
    expect(calibrationKeep(m(1 / 300, 0.6, 300, 300), m(30 / 300, 0.3, 300, 300), { certifiable: true, loosens: false })).toBe('refit');
  });
});

// S-210: "--force: the refit was not the better one held out" was said of a refit with half the shipped bands' false
// refusals and the same false answers, which the rule kept out because it answers more on too few questions.
describe('calibrationDecision says which rule decided, as calibrationKeep decides', () => {
  const m = (falseAnswerRate: number, falseRefusalRate: number, unanswerable = 36, answerable = 44, deferralRate = 0) =>
    ({ falseAnswerRate, falseRefusalRate, deferralRate, unanswerable, answerable }) as Metrics;
  const few = { certifiable: false, loosens: false };
  const cases: [Metrics, Metrics, { certifiable: boolean; loosens: boolean }, ReturnType<typeof calibrationDecision>][] = [
    // The audit's: fewer false refusals, the same false answers, a lower answer line, on too few questions.
    [m(0, 1 / 14, 6, 14), m(0, 2 / 14, 6, 14), { certifiable: false, loosens: true }, { keep: 'shipped', ground: { rule: 'loosens' } }],
    [m(1 / 36, 26 / 44), m(2 / 36, 26 / 44), few, { keep: 'refit', ground: { rule: 'no-worse' } }],
    [m(2 / 44, 0.92, 44, 60), m(5 / 44, 0.58, 44, 60), few, { keep: 'refit', ground: { rule: 'shipped-over' } }],
    [m(1 / 46, 0.97, 46, 66), m(3 / 46, 0.82, 46, 66), few, { keep: 'shipped', ground: { rule: 'not-shown-better', shippedOver: false } }],
    [m(5 / 44, 0.9, 44, 60), m(5 / 44, 0.58, 44, 60), few, { keep: 'shipped', ground: { rule: 'not-shown-better', shippedOver: true } }],
  ];
  it('on too few to certify', () => {
    for (const [refit, shipped, fit, decided] of cases) {
      expect(calibrationDecision(refit, shipped, fit)).toEqual(decided);
      expect(calibrationKeep(refit, shipped, fit)).toBe(decided.keep);
    }
  });

  it('on enough to certify: where the order told them apart (the refit is `a`), or a tie', () => {
    const certified = { certifiable: true, loosens: false };
    // Both budgets met: the least deferral first, though the refit refuses less.
    expect(calibrationDecision(m(0, 0.02, 300, 300, 0.2), m(0, 0.05, 300, 300, 0.1), certified)).toEqual({
      keep: 'shipped',
      ground: { rule: 'preferred', split: { place: 'deferral', a: 0.2, b: 0.1, met: { a: 0, b: 0 } } },
    });
    // The shipped bands meet both budgets, the refit the false-answer one only.
    const budgets = calibrationDecision(m(0, 0.3, 300, 300), m(0, 0.02, 300, 300), certified);
    expect(budgets).toEqual({ keep: 'shipped', ground: { rule: 'preferred', split: { place: 'budgets', a: 1, b: 0, met: { a: 1, b: 0 } } } });
    // Neither shows the false-answer budget met: the lower bound on false answers.
    const bound = calibrationDecision(m(30 / 300, 0.1, 300, 300), m(20 / 300, 0.3, 300, 300), certified);
    expect(bound.keep).toBe('shipped');
    expect(bound.ground).toMatchObject({ rule: 'preferred', split: { place: 'false-answer bound', met: { a: 2, b: 2 } } });
    expect(calibrationDecision(m(0.01, 0.2, 300, 300), m(0.01, 0.2, 300, 300), certified)).toEqual({
      keep: 'shipped',
      ground: { rule: 'preferred', split: null },
    });
    expect(preferenceSplit(rates(0.01, 0.3), rates(0.01, 0.4))).toMatchObject({ place: 'false refusals', a: 0.3, b: 0.4 });
  });
});

describe('calibrateBands', () => {
  let measured: Measured[];
  beforeAll(async () => {
    const corpus = readRepoCorpus();
    const kb = await KnowledgeBase.build({ documents: corpus.documents, estate: corpus.estate });
    const questions = generateQuestions({ chunks: kb.chunks, estate: corpus.estate, gaps: parseGaps(corpus.gapsMarkdown) });
    measured = await measureAll(kb, questions, 'larkspur');
  });

  it('keeps the refit when the shipped bands answer everything, and the shipped bands when they are the refit fitted on the whole set', () => {
    const { model } = trainModel([{ name: 'all', measured }]);
    const answerAll = calibrateBands(measured, { ...model, bands: { insufficientBelow: 0, sufficientAbove: 0 } });
    expect(answerAll.shipped.falseAnswerRate).toBeGreaterThan(0.3);
    expect(answerAll.keep).toBe('refit');
    // The whole-set fit scored in-sample is at least as good as the folds' refits scored held out.
    const whole = fitBands(measured.map((m) => ({ m, ratings: rate(m.features, model) }))).bands;
    const calibrated = calibrateBands(measured, { ...model, bands: whole });
    expect(calibrated.keep).toBe('shipped');
    expect(calibrated.shipped.n).toBe(measured.length);
  });
});
