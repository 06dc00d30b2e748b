import type { GateThresholds, KnowledgeBase } from '@sandscope/engine';
import { type BaselineReport, measureBaselines } from './baselines.ts';
import { type Budgets, BUDGETS, fitThresholds } from './calibration.ts';
import { crossValidate, type FoldReport, outcomeOf } from './cross-validation.ts';
import { type DecisionFeatures, type Measured, measureAll } from './measure.ts';
import { computeMetrics, type Metrics } from './metrics.ts';
import type { EvalQuestion } from './question-set.ts';

/** One row per question: everything the website's threshold slider needs to replay `verdictOf` exactly. */
export interface QuestionRow extends DecisionFeatures {
  readonly id: string;
  readonly question: string;
  readonly label: string;
  readonly mechanism: string;
  readonly band: string;
  readonly verdict: string;
  readonly rank: number | null;
}

/**
 * `sandscope eval --json`. The rates are HELD-OUT (cross-validated) unless mode is
 * "shipped-thresholds" — the same Metrics every run reports, plus the record of how
 * they were obtained.
 */
export interface EvaluationReport extends Omit<Metrics, 'falseAnswers' | 'falseRefusals'> {
  readonly mode: 'cross-validated' | 'shipped-thresholds';
  readonly folds: readonly FoldReport[];
  readonly noWorkableBandFolds: number;
  readonly baselines: Record<string, BaselineReport>;
  /** The thresholds that ship: fitted on the whole set AFTER cross-validation measured the procedure. */
  readonly thresholds: GateThresholds;
  readonly thresholdsWorkable: boolean;
  /** The shipped thresholds scored on the very set they were fitted on — a memory, shown only for contrast. */
  readonly inSample: Pick<Metrics, 'falseAnswerRate' | 'falseRefusalRate' | 'deferralRate'> | null;
  readonly budgets: Budgets;
  readonly questions: readonly QuestionRow[];
}

export interface EvaluateOptions {
  readonly folds?: number;
  readonly seed?: number;
  /** Score with these thresholds and tune nothing (an external set scored with what ships). */
  readonly shipped?: GateThresholds;
  readonly onProgress?: (done: number, total: number) => void;
}

export async function evaluate(kb: KnowledgeBase, questions: readonly EvalQuestion[], options: EvaluateOptions = {}): Promise<EvaluationReport> {
  const measured = await measureAll(kb, questions, (d) => options.onProgress?.(d, questions.length));
  return evaluateMeasured(measured, options);
}

export function evaluateMeasured(measured: readonly Measured[], options: EvaluateOptions = {}): EvaluationReport {
  const folds = Math.max(2, Math.min(options.folds ?? 5, measured.length));
  const cv = crossValidate(measured, { folds, ...(options.seed !== undefined ? { seed: options.seed } : {}) });
  const baselines = measureBaselines(measured, cv, BUDGETS);
  const whole = options.shipped ? null : fitThresholds(measured.map((m) => ({ id: m.question.id, label: m.question.label, decision: m.decision })));
  const thresholds = options.shipped ?? whole!.thresholds;
  const final = measured.map((m) => outcomeOf(m, thresholds));
  const headline: Metrics = options.shipped ? computeMetrics(final) : cv.pooled;
  const inSample = whole ? computeMetrics(final) : null;
  return {
    mode: options.shipped ? 'shipped-thresholds' : 'cross-validated',
    n: headline.n,
    answerable: headline.answerable,
    unanswerable: headline.unanswerable,
    falseAnswerRate: headline.falseAnswerRate,
    falseRefusalRate: headline.falseRefusalRate,
    deferralRate: headline.deferralRate,
    partialRate: headline.partialRate,
    mrr: headline.mrr,
    recallAt6: headline.recallAt6,
    byMechanism: headline.byMechanism,
    folds: options.shipped ? [] : cv.folds,
    noWorkableBandFolds: options.shipped ? 0 : cv.noWorkableBandFolds,
    baselines,
    thresholds,
    thresholdsWorkable: whole ? whole.feasible : true,
    inSample: inSample ? { falseAnswerRate: inSample.falseAnswerRate, falseRefusalRate: inSample.falseRefusalRate, deferralRate: inSample.deferralRate } : null,
    budgets: BUDGETS,
    questions: measured.map((m, i) => ({
      id: m.question.id,
      question: m.question.question,
      label: m.question.label,
      mechanism: m.question.mechanism,
      // In JSON an Infinity rarity ("no passage names an entity") is written as null.
      ...m.decision,
      band: final[i]!.band,
      verdict: final[i]!.verdict,
      rank: m.rank,
    })),
  };
}
