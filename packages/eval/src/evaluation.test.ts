import { readFileSync } from 'node:fs';
import { KnowledgeBase } from '@sandscope/engine';
import { beforeAll, describe, expect, it } from 'vitest';
import { fitThresholds, type Labelled, rates, testing, wilsonUpper } from './calibration.ts';
import { assignFolds, crossValidate } from './cross-validation.ts';
import { parseGaps } from './gaps.ts';
import { generateQuestions, type GeneratedQuestion } from './generator.ts';
import { type DecisionFeatures, engineVerdict, type Measured, measureAll, verdictOf } from './measure.ts';
import { toJsonl } from './question-set.ts';
import { seededRandom } from './rng.ts';
import { CORPUS_DIR, readRepoCorpus } from './test-corpus.ts';

let kb: KnowledgeBase;
let questions: GeneratedQuestion[];
let measured: Measured[];
const corpus = readRepoCorpus();

beforeAll(async () => {
  kb = await KnowledgeBase.build({ documents: corpus.documents, estate: corpus.estate });
  questions = generateQuestions({ chunks: kb.chunks, estate: corpus.estate, gaps: parseGaps(corpus.gapsMarkdown) });
  measured = await measureAll(kb, questions);
});

describe('the generated question set', () => {
  it('is reproducible from the generator and matches corpus/questions.jsonl', () => {
    const again = generateQuestions({ chunks: kb.chunks, estate: corpus.estate, gaps: parseGaps(corpus.gapsMarkdown) });
    expect(toJsonl(again)).toBe(toJsonl(questions));
    expect(readFileSync(new URL('questions.jsonl', CORPUS_DIR), 'utf8')).toBe(toJsonl(questions));
  });

  it('makes every answerable question from a passage that exists: its evidence by construction', () => {
    const ids = new Set(kb.chunks.map((c) => c.id));
    for (const q of questions.filter((x) => x.label === 'answerable')) {
      expect(q.evidence ?? q.doc, q.id).toBeTruthy();
      if (q.evidence) expect(ids.has(q.evidence), `${q.id} → ${q.evidence}`).toBe(true);
    }
  });

  it('verifies absence: a planted gap the corpus does cover is dropped at generation time', () => {
    const planted = [...parseGaps(corpus.gapsMarkdown), { topic: 'connection pool tuning', terms: ['connection pool'], correction: false }];
    const withPlant = generateQuestions({ chunks: kb.chunks, estate: corpus.estate, gaps: planted });
    expect(withPlant.some((q) => q.question.includes('connection pool tuning'))).toBe(false);
    expect(withPlant.filter((q) => q.mechanism === 'absent_topic').length).toBe(questions.filter((q) => q.mechanism === 'absent_topic').length);
    // and an uncovered planted gap IS kept, so the check is not simply dropping everything
    const uncovered = generateQuestions({ chunks: kb.chunks, estate: corpus.estate, gaps: [{ topic: 'quantum billing', terms: ['quantum'], correction: false }] });
    expect(uncovered.some((q) => q.question.includes('quantum billing'))).toBe(true);
  });

  it('never asks a property of an entity the corpus documents it for, as unanswerable', () => {
    for (const q of questions.filter((x) => x.mechanism === 'property_other_entity')) {
      const owner = corpus.estate.properties.find((p) => q.question.includes(p.name) && q.question.includes(p.service));
      expect(owner, q.question).toBeUndefined();
    }
  });

  it('varies phrasing within every mechanism', () => {
    const shapes = new Map<string, Set<string>>();
    for (const q of questions) {
      const shape = q.question.split(/\s+/).slice(0, 2).join(' ');
      shapes.set(q.mechanism, (shapes.get(q.mechanism) ?? new Set()).add(shape));
    }
    for (const [m, s] of shapes) expect(s.size, m).toBeGreaterThan(1);
  });
});

describe('the calibration sweep decides exactly as the engine does', () => {
  it('verdictOf agrees with the engine decide() on every question under random thresholds', () => {
    const random = seededRandom(3);
    for (let trial = 0; trial < 25; trial++) {
      const lo = random() * 6;
      const t = { insufficientBelow: lo, sufficientAbove: lo + random() * 10, minTermCoverage: 0.2 + random() * 0.5, minConcentration: 0.3 + random() * 0.6, identifyingEntityMaxPassages: Math.floor(random() * 4) };
      for (const m of measured) expect(verdictOf(m.decision, t), `${m.question.id} under ${JSON.stringify(t)}`).toEqual(engineVerdict(m, t));
    }
  });
});

describe('fitting meets the budgets with confidence, not on the point estimate', () => {
  // One signal decides: answered iff score clears the line (every passage carries the predicate).
  const item = (id: string, label: 'answerable' | 'unanswerable', score: number): Labelled => {
    const decision: DecisionFeatures = { noEvidence: false, coverage: 1, degraded: false, score, downgrade: false, bestConcentration: 1, bestRarestEntity: Infinity, carrierConcentration: 1, carrierRarestEntity: Infinity };
    return { id, label, decision };
  };
  const set = (nU: number, wrongU: number) => [
    ...Array.from({ length: 100 }, (_, i) => item(`a${i}`, 'answerable', 10)),
    ...Array.from({ length: nU }, (_, i) => item(`u${i}`, 'unanswerable', i < wrongU ? 10 : 1)),
  ];

  it('computes the one-sided 95% Wilson upper bound', () => {
    expect(wilsonUpper(0, 100)).toBeCloseTo(0.02635, 4);
    expect(wilsonUpper(0.05, 40)).toBeGreaterThan(0.12);
    expect(wilsonUpper(0.5, 0)).toBe(0);
  });

  it('a band at exactly the budget on 40 questions is not workable; none wrong of 400 is', () => {
    const edge = fitThresholds(set(40, 2));
    expect(rates(set(40, 2), edge.thresholds).falseAnswerRate).toBeLessThanOrEqual(0.05);
    expect(edge.feasible).toBe(false);
    expect(fitThresholds(set(400, 0)).feasible).toBe(true);
  });
});

describe('the fast threshold sweep', () => {
  it('gives exactly the brute-force rates for every (lo, hi) under random non-score constants', () => {
    const items = measured.map((m) => ({ id: m.question.id, label: m.question.label, decision: m.decision }));
    const grid = testing.scoreGrid(items);
    const random = seededRandom(5);
    for (let trial = 0; trial < 6; trial++) {
      const fixed = { minTermCoverage: 0.2 + random() * 0.5, minConcentration: 0.3 + random() * 0.6, identifyingEntityMaxPassages: Math.floor(random() * 4) };
      let checked = 0;
      testing.sweepScores(items, grid, fixed, (a, b, r) => {
        if ((a * 31 + b * 17 + trial) % 97 !== 0) return;
        const oracle = rates(items, { insufficientBelow: grid[a]!, sufficientAbove: grid[b]!, ...fixed });
        expect(r.falseAnswerRate, `${a},${b}`).toBeCloseTo(oracle.falseAnswerRate, 12);
        expect(r.falseRefusalRate, `${a},${b}`).toBeCloseTo(oracle.falseRefusalRate, 12);
        expect(r.deferralRate, `${a},${b}`).toBeCloseTo(oracle.deferralRate, 12);
        checked++;
      });
      expect(checked).toBeGreaterThan(5);
    }
  });
});

describe('cross-validation never scores a fold with constants fitted on it', () => {
  it('hands the fitter only the other folds, and scores every question exactly once', () => {
    const fitCalls: string[][] = [];
    const spy = (items: readonly Labelled[]) => {
      fitCalls.push(items.map((i) => i.id));
      return fitThresholds(items);
    };
    const cv = crossValidate(measured, { folds: 5, fit: spy });
    expect(fitCalls).toHaveLength(5);
    fitCalls.forEach((fittedOn, f) => {
      const heldOut = measured.filter((m) => cv.assignment.get(m.question.id) === f).map((m) => m.question.id);
      expect(heldOut.length).toBeGreaterThan(0);
      expect(fittedOn.filter((id) => heldOut.includes(id))).toEqual([]);
      expect(fittedOn.length + heldOut.length).toBe(measured.length);
    });
    expect(cv.outcomes.map((o) => o.id).sort()).toEqual(measured.map((m) => m.question.id).sort());
  });

  it('a leakage detector: a fitter that was shown held-out questions is caught, not scored', () => {
    // A leaky fitter (here: one that closes over the whole set, as a sweep over
    // "all the data" would) plants every fold's questions in its fitting set.
    const leaky = (items: readonly Labelled[]) => {
      const all = measured.map((m) => ({ id: m.question.id, label: m.question.label, decision: m.decision }));
      return { ...fitThresholds(items), fittedOn: [...items.map((i) => i.id), ...all.slice(0, 40).map((i) => i.id)] };
    };
    expect(() => crossValidate(measured, { folds: 5, fit: leaky })).toThrow(/leak/i);
    expect(() => crossValidate(measured, { folds: 5 })).not.toThrow();
  });

  it('keeps every source group inside one fold and stratifies mechanisms', () => {
    const folds = assignFolds(questions, 5, 11);
    const groupFolds = new Map<string, Set<number>>();
    for (const q of questions) groupFolds.set(q.group, (groupFolds.get(q.group) ?? new Set()).add(folds.get(q.id)!));
    for (const [g, f] of groupFolds) expect(f.size, g).toBe(1);
    for (const m of new Set(questions.map((q) => q.mechanism))) {
      const counts = [0, 0, 0, 0, 0];
      for (const q of questions.filter((x) => x.mechanism === m)) counts[folds.get(q.id)!]!++;
      expect(counts.filter((c) => c > 0).length, m).toBeGreaterThan(1);
    }
  });
});
