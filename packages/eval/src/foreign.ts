import type { EvaluationReport } from './evaluate.ts';

/**
 * A corpus the product was not developed on, scored with the shipped thresholds
 * and never tuned on: the check that the gate holds beyond the corpus it was
 * built on. `status` says whether it is still unseen — a corpus whose errors
 * were read to fix the gate no longer measures generalisation.
 */
export interface ForeignCorpusResult {
  readonly name: string;
  readonly status: string;
  readonly answerable: number;
  readonly unanswerable: number;
  readonly falseAnswers: number;
  readonly falseRefusals: number;
  /** Every question it got wrong, for reading, not for tuning. */
  readonly errors: readonly { readonly id: string; readonly question: string; readonly label: string; readonly verdict: string }[];
}

export function foreignResult(name: string, status: string, report: EvaluationReport): ForeignCorpusResult {
  const wrong = report.questions.filter((q) => (q.label === 'answerable') === (q.verdict === 'refused'));
  return {
    name,
    status,
    answerable: report.answerable,
    unanswerable: report.unanswerable,
    falseAnswers: wrong.filter((q) => q.label === 'unanswerable').length,
    falseRefusals: wrong.filter((q) => q.label === 'answerable').length,
    errors: wrong.map((q) => ({ id: q.id, question: q.question, label: q.label, verdict: q.verdict })),
  };
}
