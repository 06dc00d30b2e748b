import type { Band, ScoredChunk } from '../types.ts';
import { carriesPredicate, type GateFeatures } from './gate-features.ts';
import type { GateThresholds } from './gate-thresholds.ts';

export interface Assessment {
  readonly band: Band;
  /** dense × BM25 of the strongest passage; null when degraded or refused before scoring. */
  readonly score: number | null;
  readonly coverage: number;
  /** Why the band is what it is, in words a reviewer can check. */
  readonly reasons: readonly string[];
  readonly degraded: boolean;
  readonly best: ScoredChunk | null;
  readonly features: GateFeatures;
}

const fmt = (n: number) => (Math.round(n * 1000) / 1000).toString();

/**
 * The evidence gate (seed §Two). Score = dense × BM25, both unnormalised, so both
 * signals must be present: a high lexical score from one repeated identifier with
 * no semantic proximity cannot clear the bar alone. Two thresholds make three
 * bands. The guards on top may only move an answer DOWN to ambiguous: they are
 * heuristics about question shape, not entitled to refuse on their own authority.
 */
export function assessEvidence(features: GateFeatures, thresholds: GateThresholds): Assessment {
  const f = features;
  const best = f.passages[f.bestIndex]?.result ?? null;
  const base = { coverage: f.coverage, degraded: f.degraded, best, features: f };

  if (f.passages.length === 0 || f.terms.length === 0) {
    return { ...base, band: 'insufficient', score: null, reasons: [f.terms.length ? 'nothing in the corpus matches the question' : 'the question has no content terms to look for'] };
  }
  if (f.coverage < thresholds.minTermCoverage) {
    return {
      ...base,
      band: 'insufficient',
      score: null,
      reasons: [`term coverage ${fmt(f.coverage)} is below ${thresholds.minTermCoverage}: refused before scoring (absent: ${f.missingTerms.join(', ')})`],
    };
  }
  if (f.degraded || f.score === null) {
    return {
      ...base,
      band: 'ambiguous',
      score: null,
      reasons: [`retrieval degraded (${f.degradedReason ?? 'no dense signal'}): the evidence is unresolved, not weak, so it is adjudicated rather than scored`],
    };
  }

  const score = f.score;
  const reasons: string[] = [];
  let band: Band;
  if (score < thresholds.insufficientBelow) {
    band = 'insufficient';
    reasons.push(`score ${fmt(score)} is below ${thresholds.insufficientBelow}`);
  } else if (score >= thresholds.sufficientAbove) {
    band = 'sufficient';
    reasons.push(
      thresholds.insufficientBelow === thresholds.sufficientAbove
        ? `score ${fmt(score)} clears the fitted line ${fmt(thresholds.sufficientAbove)} (the fitted score band is empty: whether one passage carries the answer decides)`
        : `score ${fmt(score)} is at or above ${thresholds.sufficientAbove}`,
    );
  } else {
    band = 'ambiguous';
    reasons.push(`score ${fmt(score)} is between ${thresholds.insufficientBelow} and ${thresholds.sufficientAbove}`);
  }

  // Sufficient means the strongest passage itself carries the answer: the same
  // three checks adjudication applies. Failing one moves the question DOWN to
  // ambiguous, where adjudication looks for a passage that does carry it.
  const strongest = f.passages[f.bestIndex]!;
  if (band === 'sufficient' && strongest.missingEntities.length) {
    band = 'ambiguous';
    reasons.push(`guard: the question is about ${strongest.missingEntities.join(', ')}, which the strongest passage (${strongest.result.chunk.id}) never names — downgraded to ambiguous`);
  }
  if (band === 'sufficient' && !strongest.statesDemandedValue) {
    band = 'ambiguous';
    reasons.push(`guard: the question demands a ${f.demanded} and the strongest passage (${strongest.result.chunk.id}) states none — downgraded to ambiguous`);
  }
  if (band === 'sufficient' && strongest.disclaims) {
    band = 'ambiguous';
    reasons.push(`guard: the strongest passage (${strongest.result.chunk.id}) says it does not cover this — a disclaimer is not evidence; downgraded to ambiguous`);
  }
  if (band === 'sufficient' && !carriesPredicate(strongest, thresholds, f.demanded !== null)) {
    band = 'ambiguous';
    reasons.push(`guard: the strongest passage carries ${fmt(strongest.concentration)} of the question's predicate (needs ${thresholds.minConcentration}) — downgraded to ambiguous`);
  }
  return { ...base, band, score, reasons };
}
