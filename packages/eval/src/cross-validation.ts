import type { GateThresholds } from '@sandscope/engine';
import { type Budgets, BUDGETS, type Fit, fitThresholds, type Labelled } from './calibration.ts';
import type { Measured } from './measure.ts';
import { verdictOf } from './measure.ts';
import { computeMetrics, type Metrics, type Outcome } from './metrics.ts';
import { seededRandom, shuffle } from './rng.ts';

export interface FoldReport {
  readonly fold: number;
  readonly heldOut: number;
  readonly thresholds: GateThresholds;
  /** Whether any band met both budgets on the k−1 fitting folds. */
  readonly workable: boolean;
  readonly falseAnswerRate: number;
  readonly falseRefusalRate: number;
  readonly deferralRate: number;
}

export interface CrossValidation {
  readonly folds: readonly FoldReport[];
  /** Every question scored exactly once, by constants fitted without it. */
  readonly pooled: Metrics;
  readonly noWorkableBandFolds: number;
  readonly outcomes: readonly Outcome[];
  readonly assignment: ReadonlyMap<string, number>;
}

/** Stratified by mechanism, grouped by source item (near-duplicate wordings of one fact never straddle folds), seeded. */
export function assignFolds(items: readonly { id: string; mechanism: string; group?: string }[], k: number, seed: number): Map<string, number> {
  const random = seededRandom(seed);
  const groupFold = new Map<string, number>();
  const sizes = new Array<number>(k).fill(0);
  const byMechanism = new Map<string, Map<string, number>>();
  for (const q of items) {
    const g = q.group ?? q.id;
    const groups = byMechanism.get(q.mechanism) ?? new Map<string, number>();
    groups.set(g, (groups.get(g) ?? 0) + 1);
    byMechanism.set(q.mechanism, groups);
  }
  for (const mechanism of [...byMechanism.keys()].sort()) {
    const perFold = new Array<number>(k).fill(0);
    for (const [g, n] of shuffle([...byMechanism.get(mechanism)!.entries()].sort(), random)) {
      if (groupFold.has(g)) {
        perFold[groupFold.get(g)!]! += n;
        continue;
      }
      // The fold with the fewest of this mechanism (then fewest overall) takes the group.
      let f = 0;
      for (let i = 1; i < k; i++) if (perFold[i]! < perFold[f]! || (perFold[i] === perFold[f] && sizes[i]! < sizes[f]!)) f = i;
      groupFold.set(g, f);
      perFold[f]! += n;
      sizes[f]! += n;
    }
  }
  return new Map(items.map((q) => [q.id, groupFold.get(q.group ?? q.id)!]));
}

export function outcomeOf(m: Measured, t: GateThresholds): Outcome {
  const { band, verdict } = verdictOf(m.decision, t);
  return {
    id: m.question.id,
    mechanism: m.question.mechanism,
    label: m.question.label,
    band,
    verdict,
    rank: m.rank,
    hasExpected: Boolean(m.question.evidence || m.question.doc),
  };
}

const labelled = (m: Measured): Labelled => ({ id: m.question.id, label: m.question.label, decision: m.decision });

/**
 * k-fold cross-validation of the whole calibration procedure: for each fold,
 * fit on the other k−1, score the held-out one. An operating point chosen on the
 * data it is scored against is a memory, not a measurement (seed, Applied ML).
 * `fit` is injectable so a test can prove no fold is scored with constants fitted on it.
 */
export function crossValidate(
  measured: readonly Measured[],
  options: { folds?: number; seed?: number; budgets?: Budgets; fit?: (items: readonly Labelled[], budgets: Budgets) => Fit } = {},
): CrossValidation {
  const k = options.folds ?? 5;
  const fit = options.fit ?? fitThresholds;
  const budgets = options.budgets ?? BUDGETS;
  const assignment = assignFolds(
    measured.map((m) => ({ id: m.question.id, mechanism: m.question.mechanism, group: m.question.group })),
    k,
    options.seed ?? 11,
  );
  const folds: FoldReport[] = [];
  const outcomes: Outcome[] = [];
  for (let f = 0; f < k; f++) {
    const train = measured.filter((m) => assignment.get(m.question.id) !== f);
    const test = measured.filter((m) => assignment.get(m.question.id) === f);
    if (test.length === 0) continue;
    const fitted = fit(train.map(labelled), budgets);
    // The invariant this whole procedure exists for: no fold is scored with
    // constants fitted on it. Checked on every run, not just in a test.
    const heldOutIds = new Set(test.map((m) => m.question.id));
    const leaked = fitted.fittedOn.filter((id) => heldOutIds.has(id));
    if (leaked.length) throw new Error(`calibration leak: fold ${f + 1} was fitted on ${leaked.length} of its own held-out questions (e.g. ${leaked[0]})`);
    const foldOutcomes = test.map((m) => outcomeOf(m, fitted.thresholds));
    const metrics = computeMetrics(foldOutcomes);
    outcomes.push(...foldOutcomes);
    folds.push({
      fold: f + 1,
      heldOut: test.length,
      thresholds: fitted.thresholds,
      workable: fitted.feasible,
      falseAnswerRate: metrics.falseAnswerRate,
      falseRefusalRate: metrics.falseRefusalRate,
      deferralRate: metrics.deferralRate,
    });
  }
  return { folds, pooled: computeMetrics(outcomes), noWorkableBandFolds: folds.filter((f) => !f.workable).length, outcomes, assignment };
}
