import type { Feedback, FeedbackLabel, Verdict } from '@sandscope/api';
import { choicesFor, feedbackText, MAX_NOTE_CHARS } from '@/lib/feedback-labels';
import { when } from '@/lib/format';
import { cutNotice } from '@/lib/kept-text';
import type { Problem } from '@/lib/problems';
import { InlineProblemWords, ProblemPanel } from './problem';

/**
 * "Was this right?" on a run page (issue 9, part D): the current mark, if any,
 * and a plain form that posts to the BFF (/api/runs/:id/feedback), so it works
 * with JavaScript off. The marks become a question set that `sandscope eval
 * --feedback` scores, which is why the three answers are about what the library
 * can answer rather than about taste.
 *
 * Only the answers the run's verdict admits are offered (S-224), and a save that fails anyway comes back with the
 * choice and note that were posted (`kept`, from the redirect), not the earlier mark or an empty box.
 */
export function FeedbackForm({
  runId,
  verdict,
  current,
  saved,
  problem,
  kept,
}: {
  runId: string;
  verdict: Verdict;
  current: Feedback | null;
  saved: boolean;
  problem: Problem | null;
  kept?: { readonly label: FeedbackLabel | null; readonly note: string; readonly cut: boolean } | null;
}) {
  const choices = choicesFor(verdict);
  const chosen = kept ? kept.label : (current?.label ?? null);
  const note = kept ? kept.note : (current?.note ?? '');
  return (
    <section id="feedback" className="feedback" aria-label="Was this right?">
      <h2>Was this right?</h2>
      {current ? (
        <p className="feedback-current" data-label={current.label}>
          Marked <b>{feedbackText(current.label)}</b> <span className="muted">({when(current.createdAt)})</span>
          {current.note ? <span className="feedback-note">“{current.note}”</span> : null}
        </p>
      ) : (
        <p className="muted feedback-current">Not marked yet.</p>
      )}
      {saved && current ? (
        <p className="notice feedback-saved">
          Saved.{current.label === 'wrong-answer' ? ' This answer is no longer served from the cache to anyone who asks alike.' : null}
        </p>
      ) : null}
      {problem?.code === 'invalid_request' ? (
        // The site's line is what every such refusal has in common; the agent's reason follows when this browser's post
        // left it (lib/refusal-words.ts): a note the agent refused read only "choose one of the three answers".
        <p className="notice notice-bad" role="alert" data-problem="invalid_request">
          The mark was not saved: choose one of the answers offered, and keep the note under {MAX_NOTE_CHARS} characters.
          <InlineProblemWords problem={problem} />
        </p>
      ) : problem ? (
        <ProblemPanel problem={problem} context="Your mark was not saved." />
      ) : null}
      <form method="post" action={`/api/runs/${encodeURIComponent(runId)}/feedback`} className="feedback-form">
        <fieldset>
          <legend>Your answer</legend>
          {choices.map((c) => (
            <label key={c.label} className="radio">
              <input type="radio" name="label" value={c.label} defaultChecked={chosen === c.label} required />
              {c.text}
            </label>
          ))}
        </fieldset>
        <label className="feedback-note-field">
          Note (optional)
          <textarea name="note" rows={3} maxLength={MAX_NOTE_CHARS} defaultValue={note} placeholder="What was wrong, or which runbook answers it" />
        </label>
        {kept?.cut ? (
          <p className="notice note-cut" data-cut="note">
            {cutNotice(kept.note, 'note')}
          </p>
        ) : null}
        <div className="feedback-actions">
          <button type="submit" className="button">
            {current ? 'Replace the mark' : 'Save the mark'}
          </button>
          <span className="muted">
            One mark per run: saving again replaces it. Marked runs become a question set: <code>npx sandscope eval --feedback</code>.
          </span>
        </div>
      </form>
    </section>
  );
}
