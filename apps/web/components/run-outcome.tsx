import { outcomeHasAnswer, passagesBeside } from '@sandscope/api';
import { Fragment, type ReactNode } from 'react';
import type { Band, Outcome, RefusalClaim, Risk, Terminal, Verdict, Workload } from '@sandscope/api';
import { score as fmtScore } from '@/lib/format';
import { chunkHref } from '@/lib/anchors';
import { consoleHref } from '@/lib/ask-again';
import { splitReasons } from '@/lib/reasons';
import { isolateQuoted } from '@/lib/bidi';
import { renderInline } from '@/lib/markdown';
import { Answer, type AnswerClaim, numberSources, sourceAnchor } from './answer';
import { OutcomeBanner } from './outcome';

export interface OutcomeView {
  readonly runId: string;
  /** The agent's reading of verdict and terminal; null until the run reaches a terminal. */
  readonly outcome: Outcome | null;
  readonly verdict: Verdict | null;
  readonly band: Band | null;
  readonly score: number | null;
  readonly degraded?: boolean;
  readonly terminal: Terminal | null;
  readonly reasons: readonly string[];
  readonly claims: readonly AnswerClaim[];
  readonly answer: string | null;
  readonly risk: Risk | null;
  readonly action: string | null;
  /**
   * The passages the decision found closest, best first (its reasons name the first): a refusal links them, and an
   * answer the ones it does not cite (S-190); never as answers.
   */
  readonly closest?: readonly string[];
  /** What a refusal claims (S-108), from the span of the node that refused. */
  readonly refusal?: RefusalClaim | null;
  /** The question again with each slip it left as typed replaced by the library's word (S-180), offered beside a refusal. */
  readonly askAgain?: readonly string[];
  /** The run's workload: a question offered again is asked under it. */
  readonly workload?: Workload;
}

/**
 * One line of the proposed action, its `[n]` markers linked to the answer's
 * sources. The agent cites the answer by its footnote numbers instead of
 * repeating every claim with raw chunk ids (issue 13), so a marker with no
 * such source is left as text rather than linked to nothing.
 */
function actionLine(line: string, sources: number, key: string): ReactNode[] {
  return line.split(/(\[\d+\])/).map((part, i) => {
    const n = /^\[(\d+)\]$/.exec(part)?.[1];
    if (n && Number(n) >= 1 && Number(n) <= sources) {
      return (
        <a key={`${key}-${i}`} className="footnote-ref" href={`#${sourceAnchor(Number(n))}`}>
          [{n}]
        </a>
      );
    }
    return <Fragment key={`${key}-${i}`}>{renderInline(part)}</Fragment>;
  });
}

/** The proposed action and the deterministic risk score that gated it (change review). */
export function RiskPanel({ risk, action, terminal, sources }: { risk: Risk | null; action: string | null; terminal: Terminal | null; sources: number }) {
  if (!risk && !action) return null;
  return (
    <section className="risk" aria-label="Proposed action">
      <h3>Proposed action</h3>
      {action ? (
        <div className="action-text">
          {action
            .split('\n')
            .filter((l) => l.trim())
            .map((l, i) => (
              <p key={i}>{actionLine(l, sources, `a${i}`)}</p>
            ))}
        </div>
      ) : (
        <p className="muted">No action was proposed.</p>
      )}
      {risk ? (
        <p className="risk-line">
          Risk <code>{fmtScore(risk.score)}</code> against a gate of <code>{fmtScore(risk.threshold)}</code>
          {risk.service ? (
            <>
              {' '}
              on <code>{risk.service}</code>
            </>
          ) : null}{' '}
          —{' '}
          {terminal === 'await_approval' ? (
            <b className="tag tag-terminal-await_approval">held for a person</b>
          ) : risk.score >= risk.threshold ? (
            <b>at or over the gate</b>
          ) : (
            <b>under the gate, emitted</b>
          )}
        </p>
      ) : null}
      {risk && risk.factors.length > 0 ? (
        <ul className="risk-factors">
          {risk.factors.map((f, i) => (
            <li key={i}>{f}</li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}

/**
 * A run's outcome, the same on the console and the run page: one banner, in
 * words; then the verified answer with its footnotes when there is one, or —
 * for a refusal or an escalation — why, and no answer.
 */
/** The sentences first; the model's numbers behind a disclosure (issue 13, item 3). */
function Reasons({ reasons }: { reasons: readonly string[] }) {
  const { plain, numbers } = splitReasons(reasons);
  return (
    <>
      <ul className="reasons">
        {plain.map((r, i) => (
          // The question's words it quotes, each isolated for direction (S-240).
          <li key={i}>{isolateQuoted(r)}</li>
        ))}
      </ul>
      {numbers.length > 0 ? (
        <details className="reason-numbers" data-testid="reason-numbers">
          <summary>The numbers</summary>
          <ul className="reasons">
            {numbers.map((r, i) => (
              <li key={i}>{r}</li>
            ))}
          </ul>
        </details>
      ) : null}
    </>
  );
}

/**
 * S-190: the closest passages an answer does not cite, linked under it to check it against. Offline about one answer
 * in five cites a passage other than the one that answers, and it looked as sure as the rest. Never sources.
 */
function PassagesBeside({ closest, claims }: { closest: readonly string[]; claims: readonly AnswerClaim[] }) {
  // Without claims the page cannot tell what the answer cites, so it names nothing rather than its own source.
  if (claims.length === 0) return null;
  const beside = passagesBeside(
    closest,
    claims.flatMap((c) => c.citations.map((s) => s.chunkId)),
  );
  if (beside.length === 0) return null;
  return (
    <p className="passages-beside" data-testid="passages-beside">
      Also close to the question, not cited:{' '}
      {beside.map((id, i) => (
        <Fragment key={id}>
          {i > 0 ? ', ' : null}
          <a href={chunkHref(id)}>{id}</a>
        </Fragment>
      ))}
      . If the answer is not about what you asked, read {beside.length > 1 ? 'them' : 'it'}.
    </p>
  );
}

export function RunOutcome({ view }: { view: OutcomeView }) {
  const { outcome, verdict } = view;
  const answered = outcome !== null && outcomeHasAnswer(outcome);
  return (
    <div className="outcome">
      {outcome ? (
        <OutcomeBanner
          outcome={outcome}
          verdict={verdict}
          band={view.band}
          score={view.score}
          refusal={view.refusal ?? null}
          {...(view.degraded ? { degraded: true } : {})}
        />
      ) : null}
      {answered ? (
        <>
          <Answer claims={view.claims} verdict={verdict ?? 'answered'} />
          {view.claims.length === 0 && view.answer ? <p className="answer-text">{renderInline(view.answer)}</p> : null}
          <PassagesBeside closest={view.closest ?? []} claims={view.claims} />
          {view.reasons.length > 0 ? (
            <details className="reasons-box" open={verdict === 'partial'}>
              <summary>{verdict === 'partial' ? 'Adjudication — why this is only partial' : 'Why the gate let this through'}</summary>
              <Reasons reasons={view.reasons} />
            </details>
          ) : null}
        </>
      ) : outcome ? (
        <section
          className={outcome === 'escalated' ? 'refusal escalation' : 'refusal'}
          aria-label={outcome === 'escalated' ? 'Why it escalated' : 'Why it refused'}
        >
          {outcome === 'escalated' && view.answer ? <p className="answer-text">{renderInline(view.answer)}</p> : null}
          <h3>Why</h3>
          <Reasons reasons={view.reasons} />
          {outcome === 'refused' && view.closest?.length ? (
            <p className="closest-passage" data-chunk={view.closest[0]}>
              {view.closest.length > 1 ? 'The passages the model found closest, most likely first: ' : 'The passage the model found closest: '}
              {view.closest.map((id, i) => (
                <Fragment key={id}>
                  {i > 0 ? ', ' : null}
                  <a href={chunkHref(id)}>{id}</a>
                </Fragment>
              ))}
              . {view.closest.length > 1 ? 'None is given as an answer: read them to judge.' : 'It is not given as an answer: read it to judge.'}
            </p>
          ) : null}
          {outcome === 'refused' && view.askAgain?.length ? (
            <p className="ask-again">
              {view.askAgain.length > 1
                ? 'Ask again with the library’s word, the one you meant: '
                : 'Ask again with the library’s word, if it is what you meant: '}
              {view.askAgain.map((q, i) => (
                <Fragment key={q}>
                  {i > 0 ? ' or ' : null}
                  <a href={consoleHref(q, view.workload ?? 'triage')} data-ask-again={q}>
                    <bdi>{q}</bdi>
                  </a>
                </Fragment>
              ))}
              . Only the slip is changed; the question is filled in for you to ask.
            </p>
          ) : null}
        </section>
      ) : null}
      <RiskPanel risk={view.risk} action={view.action} terminal={view.terminal} sources={numberSources(view.claims).length} />
    </div>
  );
}

export function ApproveForm({ runId }: { runId: string }) {
  return (
    <form method="post" action={`/api/runs/${encodeURIComponent(runId)}/approve`} className="approve-form">
      <button type="submit" className="button button-approve">
        Approve — run it as a new, linked run
      </button>
      <span className="muted">Only the browser session that asked can approve. This run stays as it is, in the record.</span>
    </form>
  );
}
