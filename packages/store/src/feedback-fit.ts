import type { Verdict } from '@sandscope/engine/outcome';

/*
 * Which marks a run's verdict admits: the rule markRun enforces, apart from the database so the website can offer
 * only those marks (S-224: its "Was this right?" offered Wrong answer on a refusal, which the agent always refused).
 * Imports a type only: the website reads this module (`@sandscope/store/feedback-fit`) without the store.
 */

/**
 * What a person says about a run (issue 9, part D): it answered what the
 * library cannot answer, it refused what the library does answer, or it was
 * right. The same three words as migration 0017's CHECK.
 */
export type FeedbackLabel = 'wrong-answer' | 'wrong-refusal' | 'right';

export const FEEDBACK_LABELS: readonly FeedbackLabel[] = ['wrong-answer', 'wrong-refusal', 'right'];

/**
 * The verdicts a label contradicts: `wrong-refusal` says the run refused what the library answers, `wrong-answer` that
 * it answered what the library cannot answer. Stored on a run that did the other, the mark became a question labelled
 * against what the person saw (S-210: a cited answer marked wrong-refusal was exported answerable with no evidence,
 * its passage lost). A partial answer is both an answer and a withheld one: every label fits it.
 */
export const CONTRADICTED: Readonly<Record<FeedbackLabel, readonly Verdict[]>> = {
  'wrong-answer': ['refused'],
  'wrong-refusal': ['answered'],
  right: [],
};

/** The labels that fit a run's verdict, in FEEDBACK_LABELS's order. */
export function labelsFitting(verdict: Verdict): FeedbackLabel[] {
  return FEEDBACK_LABELS.filter((label) => !CONTRADICTED[label].includes(verdict));
}
