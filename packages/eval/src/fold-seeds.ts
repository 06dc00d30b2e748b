import type { Budgets } from './calibration.ts';
import { BUDGETS } from './calibration.ts';
import { crossValidate } from './cross-validation.ts';
import type { Measured } from './measure.ts';

export interface FoldSeedRun {
  readonly seed: number;
  readonly falseAnswerRate: number;
  readonly falseRefusalRate: number;
  readonly deferralRate: number;
  readonly noWorkableBandFolds: number;
  readonly withinBudgets: boolean;
}

export interface FoldSeedStability {
  readonly runs: readonly FoldSeedRun[];
  readonly withinBudgets: number;
  readonly meanFalseAnswerRate: number;
  readonly meanFalseRefusalRate: number;
}

/** Splits other than the reported one (its seed is cross-validation's default). */
export const STABILITY_SEEDS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];

/**
 * The whole cross-validation again under other fold assignments. One split's
 * held-out figures are one draw: a procedure that sits on a budget's edge meets
 * it on some splits and misses on others (S-020), and only the spread says which.
 */
export function acrossFoldSeeds(measured: readonly Measured[], options: { folds?: number; seeds?: readonly number[]; budgets?: Budgets } = {}): FoldSeedStability {
  const budgets = options.budgets ?? BUDGETS;
  const runs = (options.seeds ?? STABILITY_SEEDS).map((seed) => {
    const cv = crossValidate(measured, { folds: options.folds ?? 5, seed, budgets });
    const { falseAnswerRate, falseRefusalRate, deferralRate } = cv.pooled;
    return {
      seed,
      falseAnswerRate,
      falseRefusalRate,
      deferralRate,
      noWorkableBandFolds: cv.noWorkableBandFolds,
      withinBudgets: falseAnswerRate <= budgets.falseAnswerRate && falseRefusalRate <= budgets.falseRefusalRate,
    };
  });
  const mean = (f: (r: FoldSeedRun) => number) => (runs.length ? runs.reduce((s, r) => s + f(r), 0) / runs.length : 0);
  return {
    runs,
    withinBudgets: runs.filter((r) => r.withinBudgets).length,
    meanFalseAnswerRate: mean((r) => r.falseAnswerRate),
    meanFalseRefusalRate: mean((r) => r.falseRefusalRate),
  };
}
