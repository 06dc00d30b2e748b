import { stem } from '../retrieval/tokenizer.ts';
import { type AnswerabilityFeatures, FEATURE_NAMES, type PassageFeatures, passes } from './features.ts';

export interface ValueConflict {
  /** The passage that would have answered, and the one that disagrees with it. */
  readonly of: PassageFeatures;
  readonly other: PassageFeatures;
  /** The unit both state a value in ("connect" for connections), and the values each gives for it. */
  readonly unit: string;
  readonly stated: readonly number[];
  readonly otherStated: readonly number[];
}

/**
 * The quantities a sentence states, by unit: `100 connections` → connect: {100}; `90%` → %: {90};
 * `5 minutes` → minut: {5}. A number with no unit after it is not a quantity of anything.
 */
export function quantities(sentence: string): Map<string, Set<number>> {
  const out = new Map<string, Set<number>>();
  for (const m of sentence.replace(/[`*_]/g, '').matchAll(/(?<![\w.-])(\d+(?:,\d{3})*(?:\.\d+)?)\s*(%|[a-z]+)/gi)) {
    const unit = m[2] === '%' ? '%' : stem(m[2]!.toLowerCase());
    const set = out.get(unit) ?? new Set<number>();
    set.add(Number(m[1]!.replaceAll(',', '')));
    out.set(unit, set);
  }
  return out;
}

const VALUE_COVERAGE = FEATURE_NAMES.indexOf('valueCoverage');

/**
 * Two passages stating different values for the same property (issue 12, defect 9):
 * answering with one, or side by side with both, hides that the library disagrees
 * with itself — and at 3am the engineer acts on whichever came first. A conflict is
 * another retrieved passage that fails no check, names everything asked, and states
 * a value of the demanded kind in a sentence that carries ALL of the question's
 * predicate (as the answering sentence does), in the same unit, with no value in
 * common with it ("100 connections" against "150 connections"). Strict on purpose:
 * "alerts at 90% of the pool ceiling for 5 minutes" mentions the ceiling but states
 * other quantities, and is no conflict.
 */
export function valueConflict(f: AnswerabilityFeatures, answering: number): ValueConflict | null {
  const best = f.passages[answering];
  if (!f.demanded || !best?.valueSentence || best.vector[VALUE_COVERAGE]! < 1) return null;
  const stated = quantities(best.valueSentence);
  if (stated.size === 0) return null;
  for (const p of f.passages) {
    if (p === best || !p.valueSentence || p.result.chunk.id === best.result.chunk.id || p.vector[VALUE_COVERAGE]! < 1 || !passes(p, f)) continue;
    for (const [unit, theirs] of quantities(p.valueSentence)) {
      const ours = stated.get(unit);
      if (ours && ![...theirs].some((n) => ours.has(n))) return { of: best, other: p, unit, stated: [...ours], otherStated: [...theirs] };
    }
  }
  return null;
}
