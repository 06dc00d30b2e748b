import { type FeedbackQuestion, feedbackQuestionSet, type MarkLeftOut } from '@sandscope/eval';
import { listFeedback, markedCorpusVersions } from '@sandscope/store';
import { UserError } from '../user-error.ts';
import { openCliStore } from './cli-store.ts';

type Env = Readonly<Record<string, string | undefined>>;

/** Where marks come from, said whenever there are none (`feedback --export`, `eval --feedback`). */
export const HOW_TO_MARK =
  'Mark a run on its page in the website ("Was this right?") or with `npx sandscope feedback RUN_ID --label wrong-answer|wrong-refusal|right`, then run this again.';

export interface FeedbackQuestionSet {
  readonly questions: readonly FeedbackQuestion[];
  /** Where the marks were read, for the report ("marked runs in PGlite at …"). */
  readonly origin: string;
  /** How many marks are on runs answered from each corpus version, most first (`eval --feedback` checks it, S-210). */
  readonly corpusVersions: readonly { readonly corpusVersion: string; readonly marks: number }[];
  /** How many marks were read: the questions, and the marks left out as a newer mark of their question is kept. */
  readonly marks: number;
  /** The marks left out, each with the mark kept in its place (S-287). */
  readonly leftOut: readonly MarkLeftOut[];
}

/**
 * Every stored mark as a labelled question, one line per question (feedbackQuestionSet: the newest mark of a question
 * kept, S-287), converted by the one function that defines the mapping (feedbackToQuestion), so the export file and
 * `eval --feedback` score exactly the same set. No marks is a UserError: an empty set has no rates to report.
 */
export async function loadFeedbackQuestions(env: Env = process.env): Promise<FeedbackQuestionSet> {
  const store = await openCliStore(env);
  try {
    const marks = await listFeedback(store.db);
    if (marks.length === 0) throw new UserError(`no runs have been marked yet in ${store.db.description}. ${HOW_TO_MARK}`);
    const { questions, leftOut } = feedbackQuestionSet(marks);
    return {
      questions,
      origin: `marked runs in ${store.db.description}`,
      corpusVersions: await markedCorpusVersions(store.db),
      marks: marks.length,
      leftOut,
    };
  } finally {
    await store.close();
  }
}

/** A mark's time as the CLI says it: UTC, to the minute. */
export const markTime = (iso: string | null) => (iso ? `${iso.slice(0, 16).replace('T', ' ')} UTC` : 'at a time not recorded');

/**
 * The marks left out, in words for the export and `eval --feedback` (S-287): two runs of one question marked `right` and
 * `wrong-answer` were both exported without a word, and one answer counted as a false answer and a right answer. The
 * rule first, then each mark left out beside the one kept, and for a conflict how to keep the other.
 */
export function leftOutWords(leftOut: readonly MarkLeftOut[]): string[] {
  if (leftOut.length === 0) return [];
  const conflicts = leftOut.filter((m) => m.kind === 'conflict').length;
  const lines = [
    `${leftOut.length} mark${leftOut.length === 1 ? '' : 's'} left out${conflicts ? ` (${conflicts} in conflict)` : ''}: a question is scored once, by its newest mark, as marking a run again replaces its mark.`,
  ];
  for (const m of leftOut) {
    const kept = `${m.kept.label} on run ${m.kept.runId} (${markTime(m.kept.createdAt)})`;
    const left = `${m.label} on run ${m.runId} (${markTime(m.createdAt)})`;
    lines.push(
      m.kind === 'conflict'
        ? `  conflict: "${m.question}" — kept ${kept}; left out ${left}, which says otherwise of what the library answers. If the older mark is the right one, mark run ${m.kept.runId} again to agree with it.`
        : `  repeat: "${m.question}" — kept ${kept}; left out ${left}, which says the same.`,
    );
  }
  return lines;
}

/**
 * `right` answers whose mark names no passage (S-286): not labelled with the run's own citation, which scored right
 * source 100% by construction. Said with how to confirm the citation; null when there are none.
 */
export function unconfirmedSourceWords(questions: readonly FeedbackQuestion[]): string | null {
  const unconfirmed = questions.filter((q) => q.mechanism === 'feedback-right' && q.label === 'answerable' && !q.evidence).length;
  if (unconfirmed === 0) return null;
  return (
    `${unconfirmed} answer${unconfirmed === 1 ? '' : 's'} marked right name${unconfirmed === 1 ? 's' : ''} no passage that answers: ${unconfirmed === 1 ? 'its' : 'their'} source is not scored, as the run's own citation would score right source by construction. ` +
    'To confirm the passage a run cited, mark it again with it: `npx sandscope feedback RUN_ID --label right --evidence PASSAGE_ID`.'
  );
}
