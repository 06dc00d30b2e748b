import { rate } from '@sandscope/engine';
import { type AskedAgain, countAskedAgain, poolAskedAgain } from './asked-again.ts';
import { type Budgets, BUDGETS, decidedOutside, type Scored } from './bands.ts';
import type { Measured } from './measure.ts';
import { computeMetrics, type Metrics, type Outcome } from './metrics.ts';
import { outcomeOf } from './outcome.ts';
import { type TrainingGroup, trainModel } from './train.ts';

export interface HeldOutCorpus extends Metrics {
  readonly corpus: string;
  /** Whether the bands fitted without it met both budgets on the corpora they were fitted on. */
  readonly workable: boolean;
  readonly bands: { readonly insufficientBelow: number; readonly sufficientAbove: number };
  /** With an LLM adjudicator: what its training fold's adjudicated bands decide alone on this corpus, and what they leave to it. */
  readonly adjudicated: Adjudicated;
  /** Its questions with one slip of the keys each, scored by the same model: only when the corpus brought them. */
  readonly typed?: Metrics;
}

export type Adjudicated = ReturnType<typeof decidedOutside> & { readonly bands: { readonly insufficientBelow: number; readonly sufficientAbove: number } };

export interface LeaveOneCorpusOut {
  readonly corpora: readonly HeldOutCorpus[];
  /** Every held-out question pooled: each scored by a model trained without its corpus. */
  readonly pooled: Metrics;
  readonly outcomes: readonly Outcome[];
  /** Pooled over held-out questions, each under its own fold's adjudicated bands. */
  readonly adjudicated: Omit<Adjudicated, 'bands'>;
  /** The typed questions of the corpora that brought them, pooled; absent when none did. */
  readonly typed?: Metrics;
  /** What asking the typed refusals again with the question they offer does, pooled; absent when no corpus brought them. */
  readonly askedAgain?: AskedAgain;
}

/**
 * A corpus to hold out; `typed`, its questions with one slip each, is scored beside it and never trained on, and
 * `askedAgain`, the first question each typed question's refusal would offer (S-180, measured under the typed
 * question's id and label), is scored where the typed question is refused.
 */
export type HeldOutGroup = TrainingGroup & { readonly typed?: readonly Measured[]; readonly askedAgain?: readonly Measured[] };

/** One held-out corpus's share of the run: everything `poolFolds` needs, plain data (it crosses to a worker and back). */
export interface Fold {
  readonly held: HeldOutCorpus;
  readonly outcomes: readonly Outcome[];
  readonly decided: ReturnType<typeof decidedOutside>;
  readonly typed?: readonly Outcome[];
  readonly askedAgain?: AskedAgain;
}

export interface LeaveOneCorpusOutOptions {
  readonly alwaysTrainOn?: readonly TrainingGroup[];
  readonly budgets?: Budgets;
  /** The corpora to score (all when absent); the rest only train. */
  readonly heldOut?: ReadonlySet<string>;
}

/** The corpora a run scores, in the order their folds are pooled. */
export const heldOutNames = (corpora: readonly HeldOutGroup[], options: LeaveOneCorpusOutOptions = {}): string[] =>
  corpora.filter((c) => !options.heldOut || options.heldOut.has(c.name)).map((c) => c.name);

/**
 * The headline measurement (issue 9 B): for each corpus, train the whole
 * procedure — weights and bands — on every OTHER corpus, then score it. A corpus
 * is never scored by a model that saw any of its questions; the check below
 * runs on every call, not just in a test. `alwaysTrainOn` groups (the generated
 * set) are in every training set and never scored here.
 * `heldOut` names the corpora to score (all when absent); the rest only train.
 * `folds`, when given, are this run's folds computed elsewhere (in worker threads, `heldOutFold` on the same
 * input): each fold depends on nothing but its input, so where it ran changes no bit of the result.
 */
export function leaveOneCorpusOut(corpora: readonly HeldOutGroup[], options: LeaveOneCorpusOutOptions & { folds?: readonly Fold[] } = {}): LeaveOneCorpusOut {
  // `heldOut` scores only the named corpora — each still by a model trained on every OTHER corpus, so its
  // figures are exactly its folds of the whole run, at a fraction of the cost (an experiment's judge group).
  const names = heldOutNames(corpora, options);
  const folds = options.folds ?? names.map((name) => heldOutFold(corpora, name, options));
  if (folds.map((f) => f.held.corpus).join('\u0000') !== names.join('\u0000'))
    throw new Error(`leave-one-corpus-out: the folds given score ${folds.map((f) => f.held.corpus).join(', ')}, not ${names.join(', ')}`);
  return poolFolds(folds);
}

/** One corpus held out: the whole procedure trained on every other corpus, then this one scored. */
export function heldOutFold(corpora: readonly HeldOutGroup[], name: string, options: LeaveOneCorpusOutOptions = {}): Fold {
  const corpus = corpora.find((c) => c.name === name);
  if (!corpus) throw new Error(`leave-one-corpus-out: no corpus named ${name}`);
  const trained = trainModel([...(options.alwaysTrainOn ?? []), ...corpora.filter((c) => c !== corpus)], options.budgets ?? BUDGETS);
  if (trained.trainedOn.includes(corpus.name)) throw new Error(`leave-one-corpus-out leak: ${corpus.name} was in its own training set`);
  const own = corpus.measured.map((m: Measured) => outcomeOf(m, trained.model));
  // The same model reads the same questions as typed: what one slip of the keys costs, held out as the rest is.
  const typed = corpus.typed?.map((m) => outcomeOf(m, trained.model));
  // …and a typed question it refuses, asked again as its refusal offers: by the same model, as the person would be.
  const askedAgain =
    typed && corpus.askedAgain
      ? countAskedAgain(typed, new Map(corpus.askedAgain.map((m) => [m.question.id, outcomeOf(m, trained.model)])), new Map(own.map((o) => [o.id, o])))
      : undefined;
  const scored: Scored[] = corpus.measured.map((m) => ({ m, ratings: rate(m.features, trained.model) }));
  const adjudicatedBands = trained.model.adjudicatedBands!;
  const decided = decidedOutside(scored, adjudicatedBands);
  return {
    held: {
      corpus: corpus.name,
      workable: trained.bandFit.feasible,
      bands: trained.model.bands,
      adjudicated: { ...decided, bands: adjudicatedBands },
      ...computeMetrics(own),
      ...(typed ? { typed: computeMetrics(typed) } : {}),
    },
    outcomes: own,
    decided,
    ...(typed ? { typed } : {}),
    ...(askedAgain ? { askedAgain } : {}),
  };
}

/** The folds' figures pooled, in the order given. */
export function poolFolds(folds: readonly Fold[]): LeaveOneCorpusOut {
  const outcomes = folds.flatMap((f) => f.outcomes);
  const typedOutcomes = folds.flatMap((f) => f.typed ?? []);
  const askedAgain = folds.flatMap((f) => (f.askedAgain ? [f.askedAgain] : []));
  return {
    corpora: folds.map((f) => f.held),
    pooled: computeMetrics(outcomes),
    outcomes,
    adjudicated: poolDecided(folds.map((f) => f.decided)),
    ...(typedOutcomes.length ? { typed: computeMetrics(typedOutcomes) } : {}),
    ...(askedAgain.length ? { askedAgain: poolAskedAgain(askedAgain) } : {}),
  };
}

/** Pooled counts → pooled rates (each fold's rates weighted by its questions). */
function poolDecided(parts: readonly ReturnType<typeof decidedOutside>[]): ReturnType<typeof decidedOutside> {
  const sum = (f: (p: ReturnType<typeof decidedOutside>) => number) => parts.reduce((s, p) => s + f(p), 0);
  const nA = sum((p) => p.nA);
  const nU = sum((p) => p.nU);
  const deferredAnswerable = sum((p) => p.deferredAnswerable);
  const deferredUnanswerable = sum((p) => p.deferredUnanswerable);
  return {
    nA,
    nU,
    falseAnswerRate: nU ? sum((p) => p.falseAnswerRate * p.nU) / nU : 0,
    falseRefusalRate: nA ? sum((p) => p.falseRefusalRate * p.nA) / nA : 0,
    deferralRate: nA + nU ? (deferredAnswerable + deferredUnanswerable) / (nA + nU) : 0,
    deferredAnswerable,
    deferredUnanswerable,
  };
}
