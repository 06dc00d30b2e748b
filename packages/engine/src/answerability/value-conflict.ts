import { numbersIn } from '../orchestrator/citation-check.ts';
import { type AnswerabilityFeatures, FEATURE_NAMES, type PassageFeatures, passes } from './features.ts';

export interface ValueConflict {
  /** The passage that would have answered, and the one that disagrees with it. */
  readonly of: PassageFeatures;
  readonly other: PassageFeatures;
  readonly stated: readonly string[];
  readonly otherStated: readonly string[];
}

const VALUE_COVERAGE = FEATURE_NAMES.indexOf('valueCoverage');

/**
 * Two passages stating different values for the same property (issue 12, defect 9):
 * answering with one, or side by side with both, hides that the library disagrees
 * with itself — and at 3am the engineer acts on whichever came first. A conflict is
 * another retrieved passage that fails no check, names everything asked, and states
 * a value of the demanded kind in a sentence that carries ALL of the question's
 * predicate (as the answering sentence does), with no number in common with it.
 * Strict on purpose: a sentence about a neighbouring property carries less of the
 * predicate and is no conflict.
 */
export function valueConflict(f: AnswerabilityFeatures, answering: number): ValueConflict | null {
  const best = f.passages[answering];
  if (!f.demanded || !best?.valueSentence || best.vector[VALUE_COVERAGE]! < 1) return null;
  const stated = numbersIn(best.valueSentence);
  if (stated.length === 0) return null;
  for (const p of f.passages) {
    if (p === best || !p.valueSentence || p.result.chunk.id === best.result.chunk.id || p.vector[VALUE_COVERAGE]! < 1 || !passes(p, f)) continue;
    const otherStated = numbersIn(p.valueSentence);
    if (otherStated.length > 0 && !otherStated.some((n) => stated.includes(n))) return { of: best, other: p, stated, otherStated };
  }
  return null;
}
