import { OUTCOME_WORDS, outcomeWords } from '@sandscope/api';
import type { Band, Outcome, RefusalClaim, RunStatus, Terminal, Verdict } from '@sandscope/api';
import { score as fmtScore } from '@/lib/format';

/**
 * How a run ended, in one banner: the agent's `outcome` in the words the CLI
 * prints too (OUTCOME_WORDS, from the engine through @sandscope/api). It used
 * to be two banners — the gate's verdict and the terminal — which said
 * "Answered" in green above "Stopped for approval", or above an escalation
 * with no answer at all (issue 13).
 */
const MARK: Record<Outcome, string> = { answered: '✓', partial: '!', awaiting_approval: '‖', escalated: '↑', refused: '✕' };

export function OutcomeBanner({
  outcome,
  verdict,
  band,
  score,
  degraded,
  refusal,
}: {
  outcome: Outcome;
  verdict: Verdict | null;
  band?: Band | null;
  score?: number | null;
  degraded?: boolean;
  /** What a refusal claims (S-108): its headline says no more than the gate knows. */
  refusal?: RefusalClaim | null;
}) {
  const words = outcomeWords(outcome, refusal);
  // A held draft keeps the gate's flag: a partial answer awaiting approval says so, in the partial outcome's words.
  const heldPartial = outcome === 'awaiting_approval' && verdict === 'partial';
  return (
    <div
      className={`outcome-banner outcome-${outcome}`}
      role="status"
      data-outcome={outcome}
      data-verdict={verdict ?? ''}
      data-refusal={outcome === 'refused' ? (refusal ?? '') : ''}
    >
      <span className="outcome-mark" aria-hidden="true">
        {MARK[outcome]}
      </span>
      <div>
        <strong className="outcome-title">{words.title}</strong>
        {heldPartial ? <strong className="outcome-flag">{OUTCOME_WORDS.partial.title}</strong> : null}
        <span className="outcome-detail">
          {words.detail}
          {band ? (
            <>
              {' · evidence band '}
              <b className={`band band-${band}`}>{band}</b>
            </>
          ) : null}
          {score !== undefined ? (
            <>
              {' '}
              · score <code>{fmtScore(score)}</code>
            </>
          ) : null}
          {degraded ? (
            <>
              {' '}
              · <b className="degraded">degraded: lexical retrieval only</b>
            </>
          ) : null}
        </span>
      </div>
    </div>
  );
}

/** A compact tag for tables: the outcome, or the run's status while it has none. */
export function OutcomeTag({ outcome, status }: { outcome: Outcome | null; status?: RunStatus }) {
  if (!outcome) return <span className={`tag tag-${status ?? 'none'}`}>{status ?? '—'}</span>;
  return <span className={`tag tag-outcome-${outcome}`}>{outcome.replace('_', ' ')}</span>;
}

/**
 * Where a run stopped: the terminal node's name, like every other terminal. Not "awaiting approval" — that is
 * a state, and once the run is approved (by a new run, seed ADR-0006) the node it stopped at is all it still is.
 */
export function TerminalTag({ terminal }: { terminal: Terminal | null }) {
  if (!terminal) return <span className="tag tag-none">—</span>;
  const label = terminal.replace('_', ' ');
  return <span className={`tag tag-terminal-${terminal}`}>{label}</span>;
}
