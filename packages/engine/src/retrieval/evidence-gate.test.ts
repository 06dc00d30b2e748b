import { describe, expect, it } from 'vitest';
import type { ScoredChunk } from '../types.ts';
import { adjudicate } from './adjudicator.ts';
import { assessEvidence } from './evidence-gate.ts';
import type { GateFeatures, PassageEvidence } from './gate-features.ts';
import type { GateThresholds } from './gate-thresholds.ts';

const T: GateThresholds = { insufficientBelow: 1, sufficientAbove: 10, minTermCoverage: 0.3, minConcentration: 0.6, identifyingEntityMaxPassages: 2 };

const result = (id: string, bm25: number, dense: number): ScoredChunk => ({
  chunk: { id, doc: `${id.split('#')[0]}.md`, docTitle: 'T', heading: 'H', text: 'x' },
  bm25,
  dense,
  fused: 1,
});

function passage(id: string, bm25: number, dense: number, over: Partial<PassageEvidence> = {}): PassageEvidence {
  return { result: result(id, bm25, dense), product: bm25 * dense, missingEntities: [], statesDemandedValue: true, concentration: 0.9, disclaims: false, rarestEntityPassages: Infinity, ...over };
}

function features(passages: PassageEvidence[], over: Partial<GateFeatures> = {}): GateFeatures {
  let bestIndex = 0;
  passages.forEach((p, i) => {
    if (p.product > passages[bestIndex]!.product) bestIndex = i;
  });
  return {
    terms: ["pool", "ceiling"],
    predicate: ["pool", "ceiling"],
    missingTerms: [],
    coverage: 1,
    entities: [],
    demanded: null,
    degraded: false,
    score: passages.length ? passages[bestIndex]!.product : null,
    bestIndex,
    passages,
    ...over,
  };
}

describe('evidence gate: three bands from the product of unnormalised signals', () => {
  it('refuses below insufficientBelow', () => {
    const a = assessEvidence(features([passage('a#x', 2, 0.4)]), T); // 0.8
    expect(a.band).toBe('insufficient');
    expect(a.score).toBeCloseTo(0.8);
  });
  it('adjudicates between the thresholds', () => {
    expect(assessEvidence(features([passage('a#x', 10, 0.5)]), T).band).toBe('ambiguous'); // 5
  });
  it('answers at or above sufficientAbove, scoring the best product, not the first passage', () => {
    const a = assessEvidence(features([passage('a#x', 30, 0.1), passage('b#y', 20, 0.6)]), T); // 3 vs 12
    expect(a.band).toBe('sufficient');
    expect(a.score).toBeCloseTo(12);
    expect(a.best?.chunk.id).toBe('b#y');
  });
  it('needs both signals: a huge lexical score with no dense proximity cannot clear the bar', () => {
    expect(assessEvidence(features([passage('a#x', 500, 0)]), T).band).toBe('insufficient');
  });
});

describe('evidence gate guards', () => {
  it('refuses before scoring when term coverage is too low', () => {
    const a = assessEvidence(features([passage('a#x', 40, 0.9)], { coverage: 0.25, missingTerms: ['dns', 'resolver', 'ttl'] }), T);
    expect(a.band).toBe('insufficient');
    expect(a.score).toBeNull();
    expect(a.reasons[0]).toMatch(/coverage 0.25 is below 0.3/);
  });
  it('a value-demanding question whose passages state no value is downgraded to ambiguous, never refused', () => {
    const f = features([passage('a#x', 40, 0.9, { statesDemandedValue: false })], { demanded: 'duration' });
    const a = assessEvidence(f, T);
    expect(a.band).toBe('ambiguous');
    expect(a.reasons.join(' ')).toMatch(/demands a duration/);
  });
  it('a question about an entity the strongest passage never names is downgraded to ambiguous', () => {
    const f = features([passage('a#x', 40, 0.9, { missingEntities: ['events-bus'] })], { entities: ['events-bus'] });
    const a = assessEvidence(f, T);
    expect(a.band).toBe('ambiguous');
    expect(a.reasons.join(' ')).toMatch(/events-bus/);
  });
  it('a degraded retrieval is ambiguous and unscored, never a weak score', () => {
    const f = features([passage('a#x', 40, 0)], { degraded: true, score: null, degradedReason: 'embedder down' });
    const a = assessEvidence(f, T);
    expect(a.band).toBe('ambiguous');
    expect(a.score).toBeNull();
    expect(a.reasons[0]).toMatch(/degraded/);
  });
});

describe('identifying entities', () => {
  it('a passage naming an entity few passages mention carries a generic predicate; a common one does not', () => {
    const alert = (n: number) => assessEvidence(features([passage('runbook#signals', 10, 0.5, { concentration: 0.1, rarestEntityPassages: n })], { entities: ['ordersdbpoolsaturated'] }), T);
    expect(adjudicate(alert(2), T).decision).toBe('partial');
    expect(adjudicate(alert(3), T).decision).toBe('refuse');
  });
  it('never carries a value question by rarity alone: the value must stand with what was asked', () => {
    const f = features([passage('jobs#batch', 10, 0.5, { concentration: 0.1, rarestEntityPassages: 1 })], { entities: ['settle-batch'], demanded: 'duration' });
    expect(adjudicate(assessEvidence(f, T), T).decision).toBe('refuse');
  });
});

describe('disclaimers', () => {
  it('a strongest passage that disclaims the topic cannot be answered from, and adjudication refuses it', () => {
    const a = assessEvidence(features([passage('policy#out-of-scope', 40, 0.9, { disclaims: true })]), T);
    expect(a.band).toBe('ambiguous');
    expect(adjudicate(a, T).decision).toBe('refuse');
  });
});

describe('adjudication', () => {
  const ambiguous = (passages: PassageEvidence[], over: Partial<GateFeatures> = {}) => assessEvidence(features(passages, over), T);

  it('lets an answer through flagged partial when one passage carries it', () => {
    const adj = adjudicate(ambiguous([passage('a#x', 10, 0.5)]), T);
    expect(adj.decision).toBe('partial');
    expect(adj.carrier?.chunk.id).toBe('a#x');
  });
  it('refuses the wrong-entity near-miss: a real number about the wrong subject', () => {
    const adj = adjudicate(ambiguous([passage('orders#ceiling', 10, 0.5, { missingEntities: ['events-bus'] })], { entities: ['events-bus'] }), T);
    expect(adj.decision).toBe('refuse');
    expect(adj.reasons[0]).toMatch(/does not name events-bus/);
  });
  it('refuses when the demanded value stands in no passage', () => {
    const adj = adjudicate(ambiguous([passage('p#obs', 10, 0.5, { statesDemandedValue: false })], { demanded: 'duration' }), T);
    expect(adj.decision).toBe('refuse');
    expect(adj.reasons[0]).toMatch(/states no duration/);
  });
  it('refuses when the question is scattered over passages none of which carries it', () => {
    const adj = adjudicate(ambiguous([passage('a#x', 10, 0.5, { concentration: 0.4 }), passage('b#y', 8, 0.5, { concentration: 0.5 })]), T);
    expect(adj.decision).toBe('refuse');
    expect(adj.reasons[0]).toMatch(/needs 0.6/);
  });
});
