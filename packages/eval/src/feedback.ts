import type { Verdict } from '@sandscope/engine';
import type { EvalQuestion, Label } from './question-set.ts';

/** A person's mark on a run, as the store lists it (`@sandscope/store`'s FeedbackMark has this shape). */
export interface FeedbackMarkInput {
  readonly runId: string;
  readonly label: 'wrong-answer' | 'wrong-refusal' | 'right';
  readonly note: string | null;
  readonly question: string;
  /** What the run said. Only runs with a verdict can be marked. */
  readonly verdict: Verdict;
  /** The chunks the run's claims cited, in claim order. */
  readonly citedChunkIds: readonly string[];
}

/** One line of the external question format (`eval --questions`), plus the person's note. */
export interface FeedbackQuestion extends EvalQuestion {
  /** Carried along for whoever reads the file; the question parser ignores it. */
  readonly note?: string;
}

/**
 * Turns a mark into a labelled question — the ONE place this mapping lives, so
 * `sandscope feedback --export` and `sandscope eval --feedback` cannot disagree.
 *
 * The label says what the library can answer, which the mark implies:
 * - `wrong-answer` → unanswerable: the run answered what the library cannot answer;
 * - `wrong-refusal` → answerable: the run refused what the library does answer;
 * - `right` → whatever the run did: answerable when it answered (or partially),
 *   unanswerable when it refused.
 *
 * Only a run that was right to answer names its evidence: the first passage it
 * cited. A wrong answer's citations are exactly what should not count, and a
 * wrong refusal cited nothing.
 */
export function feedbackToQuestion(mark: FeedbackMarkInput): FeedbackQuestion {
  const answered = mark.verdict === 'answered' || mark.verdict === 'partial';
  const label: Label =
    mark.label === 'wrong-answer' ? 'unanswerable' : mark.label === 'wrong-refusal' ? 'answerable' : answered ? 'answerable' : 'unanswerable';
  const evidence = mark.label === 'right' && answered ? mark.citedChunkIds[0] : undefined;
  return {
    id: `feedback-${mark.runId}`,
    question: mark.question,
    label,
    mechanism: `feedback-${mark.label}`,
    ...(evidence ? { evidence } : {}),
    ...(mark.note ? { note: mark.note } : {}),
  };
}
