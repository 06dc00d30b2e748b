import type { RunDetail } from '@sandscope/api';
import { askAgainOf } from '@/lib/ask-again';
import { closestPassages } from '@/lib/closest-passage';
import { refusalClaim } from '@/lib/refusal-claim';
import { ApproveForm, type OutcomeView, RunOutcome } from './run-outcome';
import { failoverSummary, ProviderEvents, SpendSummary, Timeline } from './trace';

/** A run's outcome as its record (`GET /v1/runs/:id`) gives it: the same on the run's page and back on the console. */
export function recordedOutcome({ run, spans, claims }: RunDetail): OutcomeView {
  return {
    runId: run.id,
    outcome: run.outcome,
    verdict: run.verdict,
    band: run.band,
    score: run.score,
    terminal: run.terminal,
    reasons: run.reasons,
    claims: claims.map((c) => ({ text: c.text, citations: c.citations })),
    answer: run.answer,
    risk: run.risk,
    action: run.action,
    closest: closestPassages(spans),
    refusal: refusalClaim(spans),
    askAgain: askAgainOf(run.question, spans),
    workload: run.workload,
  };
}

/**
 * S-239: the run the console's address names (`/?run=<id>`), read back from its record after a reload or Back: what the
 * console showed when it finished (the outcome, the trace, the models), in the same frame and classes, and said to be
 * the run asked here, with its record a click away. A run still going is said to be, not shown as finished.
 */
export function RecordedRun({ detail }: { detail: RunDetail }) {
  const { run, spans, providerEvents, spend, children } = detail;
  const provider = failoverSummary(providerEvents);
  const href = `/runs/${encodeURIComponent(run.id)}`;
  return (
    <section className="live-run recorded-run" aria-label="This run" data-run-id={run.id} data-done={run.status === 'running' ? 'false' : 'true'}>
      <header className="live-head">
        <h2>
          Run <code className="run-id">{run.id}</code>
        </h2>
        <a className="button" href={href}>
          Open the run record →
        </a>
      </header>
      <p className="notice" data-recorded-run={run.id}>
        The run you asked here, read back from its record: its question is in the box above.
        {run.status === 'running' ? ' It is still running: reload to see more of it, or open its record.' : ''}
      </p>
      <RunOutcome view={recordedOutcome(detail)} />
      {run.terminal === 'await_approval' && run.sessionOwned && children.length === 0 ? <ApproveForm runId={run.id} /> : null}
      <div className="live-grid">
        <section>
          <h3>Trace</h3>
          <Timeline events={spans} />
        </section>
        <section>
          <h3>Models</h3>
          {provider ? <p className="failover">{provider}</p> : null}
          <ProviderEvents events={providerEvents} />
          <SpendSummary spend={spend} />
        </section>
      </div>
    </section>
  );
}
