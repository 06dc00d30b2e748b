import type { Feedback, FeedbackLabel, Verdict } from '@sandscope/api';
import { choicesFor, feedbackName, feedbackText, MAX_EVIDENCE_CHARS, MAX_NOTE_CHARS } from '@/lib/feedback-labels';
import { when } from '@/lib/format';
import { cutNotice } from '@/lib/kept-text';
import type { Problem } from '@/lib/problems';
import { InlineProblemWords, ProblemPanel } from './problem';

const CACHE_REMOVED = 'This answer is no longer served from the cache to anyone who asks alike.';
const CACHE_KEPT =
  'The cached answer could not be removed now (the cache was unreachable or refused); it will not be served again to anyone who asks alike: the agent checks each cached answer against the marks before serving it.';

/**
 * "Was this right?" on a run page (issue 9, part D): the current mark, if any,
 * and a plain form that posts to the BFF (/api/runs/:id/feedback), so it works
 * with JavaScript off. The marks become a question set that `sandscope eval
 * --feedback` scores, which is why the three answers are about what the library
 * can answer rather than about taste.
 *
 * Only the answers the run's verdict admits are offered (S-224), and a save that fails anyway comes back with the
 * choice, note and passage that were posted (`kept`, from the redirect), not the earlier mark or an empty box.
 *
 * A mark may name the passage that answers (S-286): with Wrong answer, an answer from the wrong passage; with Right,
 * the passage it cited, confirmed. A save says which mark it replaced (S-289), and a refusal gives the agent's reason
 * in place of the site's generic line (S-290), which told a person whose quotation matched no passage to "choose one
 * of the answers offered".
 */
export function FeedbackForm({
  runId,
  verdict,
  current,
  saved,
  cacheNotRemoved = false,
  problem,
  kept,
  replaced = null,
}: {
  runId: string;
  verdict: Verdict;
  current: Feedback | null;
  saved: boolean;
  /** The agent could not remove the marked answer from its cache (S-264): it is not served all the same, and this says so. */
  cacheNotRemoved?: boolean;
  problem: Problem | null;
  kept?: { readonly label: FeedbackLabel | null; readonly note: string; readonly evidence?: string; readonly cut: boolean } | null;
  /** The mark this save replaced (S-289), from this browser's own save (lib/replaced-mark.ts). */
  replaced?: Feedback | null;
}) {
  const choices = choicesFor(verdict);
  const chosen = kept ? kept.label : (current?.label ?? null);
  const note = kept ? kept.note : (current?.note ?? '');
  const evidence = kept ? (kept.evidence ?? '') : (current?.evidence ?? '');
  return (
    <section id="feedback" className="feedback" aria-label="Was this right?">
      <h2>Was this right?</h2>
      {current ? (
        <p className="feedback-current" data-label={current.label}>
          Marked <b>{feedbackText(current.label)}</b> <span className="muted">({when(current.createdAt)})</span>
          {current.note ? <span className="feedback-note">“{current.note}”</span> : null}
          {current.evidence ? (
            <span className="feedback-evidence">
              The passage that answers: <code>{current.evidence}</code>
            </span>
          ) : null}
        </p>
      ) : (
        <p className="muted feedback-current">Not marked yet.</p>
      )}
      {saved && current ? (
        <p className="notice feedback-saved">
          Saved.{current.label === 'wrong-answer' ? ` ${cacheNotRemoved ? CACHE_KEPT : CACHE_REMOVED}` : null}
          {replaced ? <ReplacedWords replaced={replaced} /> : null}
        </p>
      ) : null}
      {problem?.code === 'invalid_request' ? (
        // The agent's reason when this browser's post left it (lib/refusal-words.ts), said in place of the site's line
        // (S-290): "choose one of the answers offered" read above "the passage that answers matches no passage", as if
        // the answer chosen were the fault. The site's line alone where there is no reason: a post it refused itself.
        <p className="notice notice-bad" role="alert" data-problem="invalid_request">
          {problem.message ? (
            'The mark was not saved.'
          ) : (
            <>
              The mark was not saved: choose one of the answers offered, keep the note under {MAX_NOTE_CHARS} characters, and name the passage that answers by
              its id or a quotation of it.
            </>
          )}
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
        <label className="feedback-note-field">
          The passage that answers (optional)
          <input
            type="text"
            name="evidence"
            maxLength={MAX_EVIDENCE_CHARS}
            defaultValue={evidence}
            placeholder="Its id, as under Sources (runbook-x#mitigation), or a sentence quoted from it"
          />
          <span className="muted">
            With Wrong answer: the passage it should have answered from, if the library answers this. With Right: the passage it cited, to confirm its source; a
            right answer that names none is not scored for its source.
          </span>
        </label>
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

/** "It replaced the earlier mark: Right, note “good”, made 2026-12-08 01:02:00 UTC." */
function ReplacedWords({ replaced }: { replaced: Feedback }) {
  return (
    <span className="feedback-replaced" data-replaced={replaced.label}>
      {' '}
      It replaced the earlier mark: {feedbackName(replaced.label)}
      {replaced.note ? (
        <>
          , note “<bdi>{replaced.note}</bdi>”
        </>
      ) : null}
      {replaced.evidence ? (
        <>
          , the passage that answers <code>{replaced.evidence}</code>
        </>
      ) : null}
      , made {when(replaced.createdAt)}.
    </span>
  );
}
