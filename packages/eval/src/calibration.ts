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
  /** False when no combination met both budgets, with 95% confidence, on the fitting data ("no workable band"). */
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

/** Brute-force rates of one threshold set over items: the oracle the fast sweep is tested against. */
export function rates(items: readonly Labelled[], t: GateThresholds) {
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
 * For fixed non-score constants, every count at thresholds (lo, hi) is a
 * difference of prefix sums over the questions bucketed by score, so the whole
 * (lo, hi) grid costs O(grid²) instead of O(grid² × questions). Mirrors
 * `verdictOf` exactly; a test checks it against `rates` on random constants.
 */
function sweepScores(items: readonly Labelled[], grid: readonly number[], fixed: Omit<GateThresholds, 'insufficientBelow' | 'sufficientAbove'>, visit: (a: number, b: number, r: { falseAnswerRate: number; falseRefusalRate: number; deferralRate: number }) => void) {
  const G = grid.length;
  // Per label: counts by bucket of (all, carried, strongest-does-not-carry). A strongest passage that
  // carries the question is itself a carrier, so "answered if sufficient" needs no count of its own.
  const mk = () => ({ all: new Array<number>(G + 2).fill(0), carried: new Array<number>(G + 2).fill(0), notBest: new Array<number>(G + 2).fill(0) });
  const A = mk();
  const U = mk();
  let nA = 0;
  let nU = 0;
  let constFA = 0;
  let constFR = 0;
  let constAmb = 0;
  const carriesWith = (conc: number, rare: number) => conc >= fixed.minConcentration || rare <= fixed.identifyingEntityMaxPassages;
  for (const i of items) {
    const d = i.decision;
    const answerable = i.label === 'answerable';
    if (answerable) nA++;
    else nU++;
    const carried = carriesWith(d.carrierConcentration, d.carrierRarestEntity) && d.carrierConcentration >= 0;
    if (d.noEvidence || d.coverage < fixed.minTermCoverage) {
      if (answerable) constFR++;
      continue;
    }
    if (d.degraded || d.score === null) {
      constAmb++;
      if (answerable && !carried) constFR++;
      if (!answerable && carried) constFA++;
      continue;
    }
    const best = !d.downgrade && carriesWith(d.bestConcentration, d.bestRarestEntity);
    // bucket = number of grid values ≤ score: score < grid[a] ⟺ bucket ≤ a.
    let lo = 0;
    let hi = G;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (grid[mid]! <= d.score) lo = mid + 1;
      else hi = mid;
    }
    const c = answerable ? A : U;
    c.all[lo + 1]!++;
    if (carried) c.carried[lo + 1]!++;
    if (!best) c.notBest[lo + 1]!++;
  }
  for (const c of [A, U]) for (const arr of [c.all, c.carried, c.notBest]) for (let k = 1; k < arr.length; k++) arr[k]! += arr[k - 1]!;
  // P[k] = items with bucket < k.
  const range = (arr: number[], from: number, to: number) => arr[to]! - arr[from]!; // buckets in [from, to)
  const n = items.length;
  for (let a = 0; a < G; a++) {
    for (let b = a; b < G; b++) {
      // below lo: bucket ≤ a → [0, a+1); middle: a < bucket ≤ b → [a+1, b+1); top: bucket > b → [b+1, G+1)
      const fa = constFA + range(U.carried, a + 1, G + 1);
      const fr =
        constFR +
        range(A.all, 0, a + 1) +
        (range(A.all, a + 1, G + 1) - range(A.carried, a + 1, G + 1));
      const amb = constAmb + range(A.all, a + 1, b + 1) + range(U.all, a + 1, b + 1) + range(A.notBest, b + 1, G + 1) + range(U.notBest, b + 1, G + 1);
      visit(a, b, { falseAnswerRate: nU ? fa / nU : 0, falseRefusalRate: nA ? fr / nA : 0, deferralRate: n ? amb / n : 0 });
    }
  }
}

/**
 * Choose every tuned constant of the gate and adjudicator on `items` alone: meet
 * both budgets while deferring as little as possible (then fewest false answers).
 * "Meet" means the one-sided 95% upper confidence bound of each rate is within its
 * budget, not the rate itself: an operating point chosen to sit exactly on the
 * budget of the fitting data lands over it on unseen data about half the time
 * (S-020 — the held-out figures hovered at the budgets while the fits met them).
 * When nothing meets both, take the smallest bound-to-budget ratio and say so.
 * This function never sees anything but what it is handed — the cross-validation
 * hands it k−1 folds, and the held-out fold is scored afterwards.
 */
export function fitThresholds(items: readonly Labelled[], budgets: Budgets = BUDGETS): Fit {
  const grid = scoreGrid(items);
  const nA = items.filter((i) => i.label === 'answerable').length;
  const nU = items.length - nA;
  let best: { t: GateThresholds; r: ReturnType<typeof rates>; key: number[] } | null = null;
  let feasibleFound = false;
  for (const identifyingEntityMaxPassages of IDENTIFYING_GRID) {
    for (const minTermCoverage of COVERAGE_GRID) {
      for (const minConcentration of CONCENTRATION_GRID) {
        const fixed = { minTermCoverage, minConcentration, identifyingEntityMaxPassages };
        sweepScores(items, grid, fixed, (a, b, r) => {
          const fa = wilsonUpper(r.falseAnswerRate, nU);
          const fr = wilsonUpper(r.falseRefusalRate, nA);
          const feasible = fa <= budgets.falseAnswerRate && fr <= budgets.falseRefusalRate;
          const violation = Math.max(fa / budgets.falseAnswerRate, fr / budgets.falseRefusalRate);
          // Lexicographic: feasible first; then least deferral; then fewest false answers, then false refusals.
          const key = feasible ? [0, r.deferralRate, r.falseAnswerRate, r.falseRefusalRate] : [1, violation, r.deferralRate, 0];
          if (feasible) feasibleFound = true;
          if (!best || lexLess(key, best.key)) best = { t: { insufficientBelow: grid[a]!, sufficientAbove: grid[b]!, ...fixed }, r, key };
        });
      }
    }
  }
  const chosen = best!;
  return { thresholds: chosen.t, feasible: feasibleFound, fitted: chosen.r, fittedOn: items.map((i) => i.id) };
}

/** One-sided 95% Wilson upper bound of a rate observed as `p` over `n` trials. */
export function wilsonUpper(p: number, n: number, z = 1.645): number {
  if (n === 0) return 0;
  const z2 = z * z;
  return (p + z2 / (2 * n) + z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n);
}

/** Exposed for the test that holds the fast sweep to the brute-force oracle. */
export const testing = { sweepScores, scoreGrid };

function lexLess(a: number[], b: number[]): boolean {
  for (let i = 0; i < a.length; i++) {
    if (Math.abs(a[i]! - b[i]!) > 1e-12) return a[i]! < b[i]!;
  }
  return false;
}
