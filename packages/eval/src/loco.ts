import { type Budgets, BUDGETS } from './bands.ts';
import type { Measured } from './measure.ts';
import { computeMetrics, type Metrics, type Outcome } from './metrics.ts';
import { outcomeOf } from './outcome.ts';
import { type TrainingGroup, trainModel } from './train.ts';

export interface HeldOutCorpus extends Metrics {
  readonly corpus: string;
  /** Whether the bands fitted without it met both budgets on the corpora they were fitted on. */
  readonly workable: boolean;
  readonly bands: { readonly insufficientBelow: number; readonly sufficientAbove: number };
}

export interface LeaveOneCorpusOut {
  readonly corpora: readonly HeldOutCorpus[];
  /** Every held-out question pooled: each scored by a model trained without its corpus. */
  readonly pooled: Metrics;
  readonly outcomes: readonly Outcome[];
}

/**
 * The headline measurement (issue 9 B): for each corpus, train the whole
 * procedure — weights and bands — on every OTHER corpus, then score it. A corpus
 * is never scored by a model that saw any of its questions; the check below
 * runs on every call, not just in a test. `alwaysTrainOn` groups (the generated
 * set) are in every training set and never scored here.
 */
export function leaveOneCorpusOut(corpora: readonly TrainingGroup[], options: { alwaysTrainOn?: readonly TrainingGroup[]; budgets?: Budgets } = {}): LeaveOneCorpusOut {
  const extra = options.alwaysTrainOn ?? [];
  const held: HeldOutCorpus[] = [];
  const outcomes: Outcome[] = [];
  for (const corpus of corpora) {
    const trained = trainModel([...extra, ...corpora.filter((c) => c !== corpus)], options.budgets ?? BUDGETS);
    if (trained.trainedOn.includes(corpus.name)) throw new Error(`leave-one-corpus-out leak: ${corpus.name} was in its own training set`);
    const own = corpus.measured.map((m: Measured) => outcomeOf(m, trained.model));
    outcomes.push(...own);
    held.push({ corpus: corpus.name, workable: trained.bandFit.feasible, bands: trained.model.bands, ...computeMetrics(own) });
  }
  return { corpora: held, pooled: computeMetrics(outcomes), outcomes };
}
