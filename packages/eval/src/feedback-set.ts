import { type FeedbackMarkInput, type FeedbackQuestion, feedbackToQuestion } from './feedback.ts';
import { questionKey } from './question-set.ts';

/** A mark left out of the question set, because a newer mark of the same question is in it. */
export interface MarkLeftOut {
  readonly runId: string;
  readonly question: string;
  readonly label: FeedbackMarkInput['label'];
  readonly createdAt: string | null;
  /**
   * `conflict`: it says otherwise than the mark kept of what the library answers (answerable or not, or the passage
   * that answers); `repeat`: the same question with the same label.
   */
  readonly kind: 'conflict' | 'repeat';
  /** The mark kept for the question. */
  readonly kept: { readonly runId: string; readonly label: FeedbackMarkInput['label']; readonly createdAt: string | null };
}

export interface MarkedQuestionSet {
  readonly questions: FeedbackQuestion[];
  readonly leftOut: MarkLeftOut[];
}

const says = (q: FeedbackQuestion) => `${q.label}\u0000${q.evidence ?? ''}`;

/**
 * The marks as a question set with one line per question (`questionKey`: case, spacing and Unicode forms aside, as
 * `eval --questions` tells a file's questions apart), the newest mark of each kept (S-287). Two runs of one
 * question marked `right` and `wrong-answer` were both exported, without a word, and `eval --feedback` counted the one
 * engine answer as a false answer and as a right answer at once. The newest mark wins, as marking one run again
 * replaces its mark: the library is edited between marks (a runbook written after a wrong refusal makes the later mark
 * the true one), and a person who disagrees with it marks again. Every mark left out is listed, a conflict apart from
 * a repeat, for the export and `eval --feedback` to say. An export holding one question twice would be refused by
 * `eval --questions` (S-284) besides.
 */
export function feedbackQuestionSet(marks: readonly FeedbackMarkInput[]): MarkedQuestionSet {
  // Newest first (the store lists them so; sorted again so a caller's order cannot decide which mark wins).
  const newestFirst = marks
    .map((mark, i) => ({ mark, i, at: mark.createdAt ? Date.parse(mark.createdAt) : Number.NEGATIVE_INFINITY }))
    .sort((a, b) => b.at - a.at || a.i - b.i)
    .map((m) => m.mark);
  const kept = new Map<string, { mark: FeedbackMarkInput; question: FeedbackQuestion }>();
  const questions: FeedbackQuestion[] = [];
  const leftOut: MarkLeftOut[] = [];
  for (const mark of newestFirst) {
    const question = feedbackToQuestion(mark);
    const key = questionKey(mark.question);
    const newer = kept.get(key);
    if (!newer) {
      kept.set(key, { mark, question });
      questions.push(question);
      continue;
    }
    leftOut.push({
      runId: mark.runId,
      question: mark.question,
      label: mark.label,
      createdAt: mark.createdAt ?? null,
      kind: says(question) === says(newer.question) ? 'repeat' : 'conflict',
      kept: { runId: newer.mark.runId, label: newer.mark.label, createdAt: newer.mark.createdAt ?? null },
    });
  }
  return { questions, leftOut };
}
