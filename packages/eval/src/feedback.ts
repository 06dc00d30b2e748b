import type { Verdict } from '@sandscope/engine';
import type { EvalQuestion, Label } from './question-set.ts';

/** A person's mark on a run, as the store lists it (`@sandscope/store`'s FeedbackMark has this shape). */
export interface FeedbackMarkInput {
  readonly runId: string;
  readonly label: 'wrong-answer' | 'wrong-refusal' | 'right';
  readonly note: string | null;
  /** The id of the passage the person named as answering (S-286); null or absent (a mark made before): none named. */
  readonly evidence?: string | null;
  readonly question: string;
  /** What the run said. Only runs with a verdict can be marked. */
  readonly verdict: Verdict;
  /** The chunks the run's claims cited, in claim order. */
  readonly citedChunkIds: readonly string[];
  /** When the mark was made (ISO): the newest of several marks on one question is the one kept (feedback-set.ts). */
  readonly createdAt?: string;
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
 * - `wrong-answer` → unanswerable: the run answered what the library cannot answer; but answerable, labelled with the
 *   passage, where the person named the passage that does answer (`feedback-wrong-source`: answered from the wrong
 *   passage, S-286);
 * - `wrong-refusal` → answerable: the run refused what the library does answer;
 * - `right` → whatever the run did: answerable when it answered (or partially),
 *   unanswerable when it refused.
 *
 * The evidence is only ever the passage a person named (S-286). A `right` answer's own citation used to be taken as its
 * evidence: `eval --feedback` re-asks the question of the same engine and library, which cites the same passage, so
 * its right source was 100% by construction, even on an answer a person noted came from the wrong passage. Named, it is
 * the run's citation confirmed (the store refuses `right` naming a passage the run did not cite); unnamed, the question
 * has no labelled passage and is left out of right source and chunk MRR, as the report says (`countedOver`).
 */
export function feedbackToQuestion(mark: FeedbackMarkInput): FeedbackQuestion {
  const answered = mark.verdict === 'answered' || mark.verdict === 'partial';
  const named = mark.evidence ?? undefined;
  const wrongSource = mark.label === 'wrong-answer' && named !== undefined;
  const label: Label =
    mark.label === 'wrong-answer'
      ? wrongSource
        ? 'answerable'
        : 'unanswerable'
      : mark.label === 'wrong-refusal'
        ? 'answerable'
        : answered
          ? 'answerable'
          : 'unanswerable';
  const evidence = label === 'answerable' ? named : undefined;
  return {
    id: `feedback-${mark.runId}`,
    question: mark.question,
    label,
    mechanism: wrongSource ? 'feedback-wrong-source' : `feedback-${mark.label}`,
    ...(evidence ? { evidence } : {}),
    ...(mark.note ? { note: mark.note } : {}),
  };
}
