import type { ScoredChunk } from '../types.ts';
import type { Assessment } from './evidence-gate.ts';
import { carriesPredicate, type PassageEvidence } from './gate-features.ts';
import type { GateThresholds } from './gate-thresholds.ts';

export interface Adjudication {
  /** Adjudication lets an answer through flagged partial, or refuses. It never upgrades to sufficient. */
  readonly decision: 'partial' | 'refuse';
  readonly reasons: readonly string[];
  /** The one passage that carries the answer, when one does. */
  readonly carrier: ScoredChunk | null;
}

const fmt = (n: number) => (Math.round(n * 100) / 100).toString();

function failures(p: PassageEvidence, demanded: string | null, thresholds: GateThresholds): string[] {
  const out: string[] = [];
  if (p.missingEntities.length) out.push(`does not name ${p.missingEntities.join(', ')}`);
  if (!p.statesDemandedValue) out.push(`states no ${demanded}`);
  if (p.disclaims) out.push('says it does not cover this (a disclaimer is not evidence)');
  if (!carriesPredicate(p, thresholds, demanded !== null)) out.push(`carries ${fmt(p.concentration)} of the question's predicate (needs ${thresholds.minConcentration})`);
  return out;
}

/**
 * The explicit adjudication step for the ambiguous band. Its checks hold on any
 * corpus and know nothing of how test questions are made: an answer must be
 * CARRIED by one passage that (1) names every entity the question is about,
 * (2) states a value of the kind the question demands, and (3) covers enough of
 * the question's weight by itself rather than scattered over six passages.
 * A wrong-entity near-miss fails (1): a real number about the wrong subject is
 * the confident, well-cited wrong answer this product exists to prevent.
 */
export function adjudicate(assessment: Assessment, thresholds: GateThresholds): Adjudication {
  const f = assessment.features;
  let nearest: { p: PassageEvidence; why: string[] } | null = null;
  for (const p of f.passages) {
    const why = failures(p, f.demanded, thresholds);
    if (why.length === 0) {
      const carried = [
        p.concentration >= thresholds.minConcentration
          ? `${fmt(p.concentration)} of the question's predicate`
          : `names an entity only ${p.rarestEntityPassages} passage(s) of the corpus mention, which identifies the topic`,
      ];
      if (f.entities.length) carried.push(`names ${f.entities.join(', ')}`);
      if (f.demanded) carried.push(`states a ${f.demanded}`);
      return {
        decision: 'partial',
        carrier: p.result,
        reasons: [`adjudicated partial: ${p.result.chunk.id} carries the answer on its own (${carried.join(', ')}); flagged partial, never upgraded to sufficient`],
      };
    }
    if (!nearest || why.length < nearest.why.length || (why.length === nearest.why.length && p.concentration > nearest.p.concentration)) {
      nearest = { p, why };
    }
  }
  return {
    decision: 'refuse',
    carrier: null,
    reasons: nearest
      ? [`adjudicated refuse: no retrieved passage carries the answer; the nearest, ${nearest.p.result.chunk.id}, ${nearest.why.join('; ')}`]
      : ['adjudicated refuse: nothing was retrieved'],
  };
}
