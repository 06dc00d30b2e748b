import type { GateThresholds } from '@sandscope/engine';
import type { DecisionFeatures } from './measure.ts';
import { verdictOf } from './measure.ts';
import type { Label } from './question-set.ts';

/** The seed's budgets: a wrong answer about production costs far more than an unnecessary refusal. */
export interface Budgets {
  readonly falseAnswerRate: number;
  readonly falseRefusalRate: number;
}
export const BUDGETS: Budgets = { falseAnswerRate: 0.05, falseRefusalRate: 0.1 };

export interface Labelled {
  readonly id: string;
  readonly label: Label;
  readonly decision: DecisionFeatures;
}

export interface Fit {
  readonly thresholds: GateThresholds;
  /** False when no combination met both budgets on the fitting data ("no workable band"). */
  readonly feasible: boolean;
  readonly fitted: { readonly falseAnswerRate: number; readonly falseRefusalRate: number; readonly deferralRate: number };
  /** Ids of the questions the constants were fitted on (the leakage test reads this). */
  readonly fittedOn: readonly string[];
}

/** The grids every tuned constant is swept over. Scores: quantiles of the fitting data, never of held-out data. */
const COVERAGE_GRID = [0.2, 0.3, 0.4, 0.5, 0.6];
const CONCENTRATION_GRID = [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];
const IDENTIFYING_GRID = [0, 1, 2, 3, 4];
/** Candidate score thresholds: this many quantiles of the fitting data (resolution vs. fit time). */
const SCORE_QUANTILES = 60;

function scoreGrid(items: readonly Labelled[]): number[] {
  const scores = items.map((i) => i.decision.score).filter((s): s is number => s !== null).sort((a, b) => a - b);
  if (scores.length === 0) return [0];
  const grid = new Set<number>([0, scores[scores.length - 1]! + 1e-9]);
  for (let q = 0; q <= SCORE_QUANTILES; q++) grid.add(scores[Math.min(scores.length - 1, Math.floor((q / SCORE_QUANTILES) * scores.length))]!);
  return [...grid].sort((a, b) => a - b);
}

function rates(items: readonly Labelled[], t: GateThresholds) {
  let fa = 0;
  let fr = 0;
  let amb = 0;
  let nA = 0;
  let nU = 0;
  for (const i of items) {
    const { band, verdict } = verdictOf(i.decision, t);
    if (band === 'ambiguous') amb++;
    if (i.label === 'answerable') {
      nA++;
      if (verdict === 'refused') fr++;
    } else {
      nU++;
      if (verdict !== 'refused') fa++;
    }
  }
  return { falseAnswerRate: nU ? fa / nU : 0, falseRefusalRate: nA ? fr / nA : 0, deferralRate: items.length ? amb / items.length : 0 };
}

/**
 * Choose every tuned constant of the gate and adjudicator on `items` alone: meet
 * both budgets while deferring as little as possible (then fewest false answers).
 * When nothing meets both, take the smallest budget violation and say so.
 * This function never sees anything but what it is handed — the cross-validation
 * hands it k−1 folds, and the held-out fold is scored afterwards.
 */
export function fitThresholds(items: readonly Labelled[], budgets: Budgets = BUDGETS): Fit {
  const grid = scoreGrid(items);
  let best: { t: GateThresholds; r: ReturnType<typeof rates>; key: number[] } | null = null;
  let feasibleFound = false;
  for (const identifyingEntityMaxPassages of IDENTIFYING_GRID)
  for (const minTermCoverage of COVERAGE_GRID) {
    for (const minConcentration of CONCENTRATION_GRID) {
      for (let a = 0; a < grid.length; a++) {
        for (let b = a; b < grid.length; b++) {
          const t = { insufficientBelow: grid[a]!, sufficientAbove: grid[b]!, minTermCoverage, minConcentration, identifyingEntityMaxPassages };
          const r = rates(items, t);
          const feasible = r.falseAnswerRate <= budgets.falseAnswerRate && r.falseRefusalRate <= budgets.falseRefusalRate;
          const violation = Math.max(r.falseAnswerRate / budgets.falseAnswerRate, r.falseRefusalRate / budgets.falseRefusalRate);
          // Lexicographic: feasible first; then least deferral; then fewest false answers, then false refusals.
          const key = feasible ? [0, r.deferralRate, r.falseAnswerRate, r.falseRefusalRate] : [1, violation, r.deferralRate, 0];
          if (feasible) feasibleFound = true;
          if (!best || lexLess(key, best.key)) best = { t, r, key };
        }
      }
    }
  }
  return { thresholds: best!.t, feasible: feasibleFound, fitted: best!.r, fittedOn: items.map((i) => i.id) };
}

function lexLess(a: number[], b: number[]): boolean {
  for (let i = 0; i < a.length; i++) {
    if (Math.abs(a[i]! - b[i]!) > 1e-12) return a[i]! < b[i]!;
  }
  return false;
}
