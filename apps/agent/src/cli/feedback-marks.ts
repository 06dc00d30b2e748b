import { type FeedbackQuestion, feedbackToQuestion } from '@sandscope/eval';
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
}

/**
 * Every stored mark as a labelled question, converted by the one function
 * that defines the mapping (feedbackToQuestion), so the export file and
 * `eval --feedback` score exactly the same set. No marks is a UserError: an
 * empty set has no rates to report.
 */
export async function loadFeedbackQuestions(env: Env = process.env): Promise<FeedbackQuestionSet> {
  const store = await openCliStore(env);
  try {
    const marks = await listFeedback(store.db);
    if (marks.length === 0) throw new UserError(`no runs have been marked yet in ${store.db.description}. ${HOW_TO_MARK}`);
    return { questions: marks.map(feedbackToQuestion), origin: `marked runs in ${store.db.description}`, corpusVersions: await markedCorpusVersions(store.db) };
  } finally {
    await store.close();
  }
}
