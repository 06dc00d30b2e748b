import type { FeedbackLabel, Verdict } from '@sandscope/api';
import { labelsFitting } from '@sandscope/store/feedback-fit';

/**
 * The three answers to "Was this right?", in the words a person reads on the
 * run page, and the limits the agent enforces (docs/API.md). Shared by the form
 * and the BFF route, which checks a post before it reaches the agent so a
 * hand-made form gets the same refusal as a bad API call.
 */
export const FEEDBACK_CHOICES: readonly { readonly label: FeedbackLabel; readonly text: string }[] = [
  { label: 'right', text: 'Right — it answered, or refused, as it should' },
  { label: 'wrong-answer', text: 'Wrong answer — it answered what the library cannot answer, or from the wrong passage (name the right one below)' },
  { label: 'wrong-refusal', text: 'Wrong refusal — the library does answer this' },
];

/**
 * Where the mark's redirect tells the run page that a wrong-answer mark's cached answer could not be removed (the agent's
 * `cache.removed: false`, S-264): the page said "no longer served from the cache" whatever the agent had managed.
 */
export const CACHE_NOT_REMOVED = { param: 'cache', value: 'not-removed' } as const;

/** The agent's limit on a note, in characters (code points), after trimming. */
export const MAX_NOTE_CHARS = 2000;

/** The agent's limit on the passage a mark names as answering (its id, or a quotation of it), in characters (S-286). */
export const MAX_EVIDENCE_CHARS = 2000;

export function isFeedbackLabel(value: unknown): value is FeedbackLabel {
  return typeof value === 'string' && FEEDBACK_CHOICES.some((c) => c.label === value);
}

export function feedbackText(label: FeedbackLabel): string {
  return FEEDBACK_CHOICES.find((c) => c.label === label)!.text;
}

/** The answer's name alone ("Wrong answer"), for a line that names a mark. */
export function feedbackName(label: FeedbackLabel): string {
  return feedbackText(label).split(' — ')[0]!;
}

/**
 * The answers a run with this verdict can be given: the agent's own rule (the store's `labelsFitting`, which markRun
 * enforces), not a copy. S-224: the form offered all three, and Wrong answer on a refusal (or Wrong refusal on an
 * answer) was refused every time, the note typed with it lost.
 */
export function choicesFor(verdict: Verdict): readonly { readonly label: FeedbackLabel; readonly text: string }[] {
  const fitting: readonly FeedbackLabel[] = labelsFitting(verdict);
  return FEEDBACK_CHOICES.filter((c) => fitting.includes(c.label));
}
