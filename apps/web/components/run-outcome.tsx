import type { Band, Risk, Terminal, Verdict } from '@/lib/agent-types';
import { score as fmtScore } from '@/lib/format';
import { Markdown, renderInline } from '@/lib/markdown';
import { Answer, type AnswerClaim } from './answer';
import { TerminalBanner, VerdictBanner } from './outcome';

export interface OutcomeView {
  readonly runId: string;
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
}

function factorText(f: unknown): string {
  if (typeof f === 'string') return f;
  if (f && typeof f === 'object') {
    const o = f as Record<string, unknown>;
    const name = o.name ?? o.factor ?? o.label ?? o.id;
    const weight = o.weight ?? o.score ?? o.value;
    if (name !== undefined) return weight !== undefined ? `${String(name)} (+${String(weight)})` : String(name);
  }
  return JSON.stringify(f);
}

/** The proposed action and the deterministic risk score that gated it (change review). */
export function RiskPanel({ risk, action, terminal }: { risk: Risk | null; action: string | null; terminal: Terminal | null }) {
  if (!risk && !action) return null;
  return (
    <section className="risk" aria-label="Proposed action">
      <h3>Proposed action</h3>
      {action ? (
        <div className="action-text">
          {/* one line, one paragraph: the agent writes the action as short lines and a numbered list */}
          <Markdown source={action.replace(/\n(?!\s*\d+[.)]\s)/g, '\n\n')} />
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
          {terminal === 'await_approval' ? <b className="tag tag-terminal-await_approval">held for a person</b> : risk.score >= risk.threshold ? <b>at or over the gate</b> : <b>under the gate, emitted</b>}
        </p>
      ) : null}
      {risk && risk.factors.length > 0 ? (
        <ul className="risk-factors">
          {risk.factors.map((f, i) => (
            <li key={i}>{factorText(f)}</li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}

/**
 * A run's outcome, the same on the console and the run page: verdict first, in
 * words; then the answer with its footnotes, or — for a refusal — why, and no draft.
 */
export function RunOutcome({ view }: { view: OutcomeView }) {
  const { verdict } = view;
  return (
    <div className="outcome">
      {verdict ? <VerdictBanner verdict={verdict} band={view.band} score={view.score} {...(view.degraded ? { degraded: true } : {})} /> : null}
      <TerminalBanner terminal={view.terminal} />
      {verdict === 'refused' ? (
        <section className="refusal" aria-label="Why it refused">
          <h3>Why</h3>
          <ul className="reasons">
            {view.reasons.map((r, i) => (
              <li key={i}>{r}</li>
            ))}
          </ul>
        </section>
      ) : (
        <>
          {view.claims.length > 0 ? <Answer claims={view.claims} verdict={verdict ?? 'answered'} /> : view.answer ? <p className="answer-text">{renderInline(view.answer)}</p> : null}
          {view.reasons.length > 0 ? (
            <details className="reasons-box" open={verdict === 'partial'}>
              <summary>{verdict === 'partial' ? 'Adjudication — why this is only partial' : 'Why the gate let this through'}</summary>
              <ul className="reasons">
                {view.reasons.map((r, i) => (
                  <li key={i}>{r}</li>
                ))}
              </ul>
            </details>
          ) : null}
        </>
      )}
      <RiskPanel risk={view.risk} action={view.action} terminal={view.terminal} />
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
