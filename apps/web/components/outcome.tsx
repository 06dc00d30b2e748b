import type { Band, RunStatus, Terminal, Verdict } from '@/lib/agent-types';
import { score as fmtScore } from '@/lib/format';

/**
 * How a run ended, in words and colour that cannot be mistaken for one another
 * at 3am: a refusal is not a weak answer and a partial answer is not a confident one.
 */
export const VERDICT_WORDS: Record<Verdict, { title: string; detail: string }> = {
  answered: { title: 'Answered', detail: 'the evidence cleared the gate; every claim cites a passage' },
  partial: { title: 'Partial — adjudicated, confirm before acting', detail: 'the evidence was ambiguous; one passage carried the answer on adjudication' },
  refused: { title: 'Refused — the library does not answer this', detail: 'no draft was written: the passages found do not support an answer' },
};

export const TERMINAL_WORDS: Record<Terminal, { title: string; detail: string } | null> = {
  emit: null,
  refuse: null,
  await_approval: {
    title: 'Stopped for approval — nothing happens until a person approves',
    detail: 'The proposed action touches production. Approving creates a new run that points back at this one; this run is never resumed or edited.',
  },
  escalate: {
    title: 'Escalated — the draft’s citations did not verify',
    detail: 'The draft could not be tied to passages after retrying with feedback. Hand this to a person.',
  },
};

export function VerdictBanner({ verdict, band, score, degraded }: { verdict: Verdict; band?: Band | null; score?: number | null; degraded?: boolean }) {
  const words = VERDICT_WORDS[verdict];
  return (
    <div className={`verdict verdict-${verdict}`} role="status" data-verdict={verdict}>
      <span className="verdict-mark" aria-hidden="true">
        {verdict === 'answered' ? '✓' : verdict === 'partial' ? '!' : '✕'}
      </span>
      <div>
        <strong className="verdict-title">{words.title}</strong>
        <span className="verdict-detail">
          {words.detail}
          {band ? (
            <>
              {' · band '}
              <b className={`band band-${band}`}>{band}</b>
            </>
          ) : null}
          {score !== undefined ? <> · score <code>{fmtScore(score)}</code></> : null}
          {degraded ? <> · <b className="degraded">degraded: lexical retrieval only</b></> : null}
        </span>
      </div>
    </div>
  );
}

export function TerminalBanner({ terminal }: { terminal: Terminal | null | undefined }) {
  const words = terminal ? TERMINAL_WORDS[terminal] : null;
  if (!words || !terminal) return null;
  return (
    <div className={`terminal-banner terminal-${terminal}`} data-terminal={terminal}>
      <strong>{words.title}</strong>
      <p>{words.detail}</p>
    </div>
  );
}

/** A compact tag for tables. */
export function VerdictTag({ verdict, status }: { verdict: Verdict | null; status?: RunStatus }) {
  if (!verdict) return <span className={`tag tag-${status ?? 'none'}`}>{status ?? '—'}</span>;
  const label = verdict === 'answered' ? 'answered' : verdict === 'partial' ? 'partial' : 'refused';
  return <span className={`tag tag-${verdict}`}>{label}</span>;
}

export function TerminalTag({ terminal }: { terminal: Terminal | null }) {
  if (!terminal) return <span className="tag tag-none">—</span>;
  const label = terminal === 'await_approval' ? 'awaiting approval' : terminal;
  return <span className={`tag tag-terminal-${terminal}`}>{label}</span>;
}
