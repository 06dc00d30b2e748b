import type { Metadata } from 'next';
import { cookies } from 'next/headers';
import { TerminalTag } from '@/components/outcome';
import { FeedbackForm } from '@/components/feedback-form';
import { NotFoundHere } from '@/components/not-found-here';
import { recordedOutcome } from '@/components/recorded-run';
import { ProblemPanel } from '@/components/problem';
import { ApproveForm, RunOutcome } from '@/components/run-outcome';
import { failoverSummary, ProviderEvents, SpendSummary, Timeline } from '@/components/trace';
import { attempt, getRun } from '@/lib/agent';
import { shortId, when } from '@/lib/format';
import { CACHE_NOT_REMOVED, isFeedbackLabel } from '@/lib/feedback-labels';
import { CUT_PARAM } from '@/lib/kept-text';
import { approvingRun } from '@/lib/approvals';
import { problemFromQuery } from '@/lib/problems';
import { REFUSAL_WORDS_COOKIE, withRefusalWords } from '@/lib/refusal-words';
import { REPLACED_MARK_COOKIE, replacedMarkFrom } from '@/lib/replaced-mark';
import { NoSuchRun } from './no-such-run';

export const dynamic = 'force-dynamic';

const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

export async function generateMetadata({ params }: { params: Promise<{ id: string }> }): Promise<Metadata> {
  const { id } = await params;
  return { title: `Run ${shortId(id)}` };
}

export default async function RunPage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const [{ id }, query, jar] = await Promise.all([params, searchParams, cookies()]);
  // The URL names the code and the form (`during`); the agent's reason is in this browser's cookie, left by its own
  // refused approval or mark (lib/refusal-words.ts), which said the code's generic line alone without it.
  const during = first(query.during);
  const form = during === 'approval' || during === 'feedback' ? during : null;
  const fromQuery = problemFromQuery(query);
  const carried = fromQuery && form ? withRefusalWords(fromQuery, form, jar.get(REFUSAL_WORDS_COOKIE)?.value) : fromQuery;
  const detail = await attempt(() => getRun(id));
  // The agent has no such run: a 404 (./not-found.tsx), not a 200 page carrying a problem panel; its words in the
  // server's HTML too (NotFoundHere).
  if (!detail.ok && detail.problem.code === 'not_found') {
    return (
      <NotFoundHere>
        <NoSuchRun id={id} />
      </NotFoundHere>
    );
  }
  if (!detail.ok) {
    return (
      <>
        <header className="page-head">
          <h1>
            Run <code>{id}</code>
          </h1>
        </header>
        {carried ? <ProblemPanel problem={carried} /> : null}
        <ProblemPanel problem={detail.problem} context="This run could not be loaded." />
        <p>
          <a href="/runs">All runs</a>
        </p>
      </>
    );
  }
  const { run, spans, providerEvents, spend, parent, children, feedback } = detail.value;
  // A problem from the "Was this right?" form is shown next to the form, not as the run's own.
  const duringFeedback = form === 'feedback';
  // A mark that was not saved: the choice and note as posted, carried back by the route (S-224).
  const keptLabel = first(query.label);
  const keptFeedback =
    duringFeedback && carried
      ? {
          label: isFeedbackLabel(keptLabel) ? keptLabel : null,
          note: first(query.note) ?? '',
          evidence: first(query.evidence) ?? '',
          cut: first(query[CUT_PARAM]) === '1',
        }
      : null;
  // S-289: the mark this browser's save replaced, which its own 303 left in a cookie for this run.
  const saved = query.marked === '1';
  const replaced = saved ? replacedMarkFrom(jar.get(REPLACED_MARK_COOKIE)?.value, run.id) : null;
  const awaiting = run.terminal === 'await_approval';
  const failover = failoverSummary(providerEvents);
  // Approved twice: the run the first approval created, as the agent named it (checked against this run's children).
  const approvedBy = carried?.code === 'already_approved' ? approvingRun(children, first(query.approvedBy)) : null;
  return (
    <article className="run-page" data-run-id={run.id}>
      <header className="page-head">
        <p className="crumbs">
          <a href="/runs">Runs</a> /
        </p>
        {/* The question's own direction, isolated: an override in it reordered the heading (S-240). */}
        <h1 className="run-question" dir="auto">
          {run.question}
        </h1>
        <dl className="run-meta">
          <div>
            <dt>run</dt>
            <dd>
              <code className="run-id">{run.id}</code>
            </dd>
          </div>
          <div>
            <dt>asked</dt>
            <dd>{when(run.createdAt)}</dd>
          </div>
          <div>
            <dt>workload</dt>
            <dd>{run.workload}</dd>
          </div>
          <div>
            <dt>status</dt>
            <dd>
              <span className={`tag tag-${run.status}`}>{run.status}</span>
            </dd>
          </div>
          <div>
            <dt>ended at</dt>
            <dd>
              <TerminalTag terminal={run.terminal} />
            </dd>
          </div>
        </dl>
      </header>

      {carried && !duringFeedback ? (
        <ProblemPanel
          problem={carried}
          context={
            form === 'approval' || carried.code === 'forbidden_session' || carried.code === 'not_awaiting_approval' || carried.code === 'already_approved'
              ? 'The approval was refused.'
              : 'The run did not finish cleanly.'
          }
        >
          {approvedBy ? (
            <p className="problem-next" data-approved-by={approvedBy}>
              Its approval is run{' '}
              <a href={`/runs/${encodeURIComponent(approvedBy)}`}>
                <code>{approvedBy}</code>
              </a>
              .
            </p>
          ) : null}
        </ProblemPanel>
      ) : null}

      {parent ? (
        <p className="link-note link-parent" data-parent={parent.id}>
          This run is the approval of gated run{' '}
          <a href={`/runs/${encodeURIComponent(parent.id)}`}>
            <code>{parent.id}</code>
          </a>
          , which stopped at <TerminalTag terminal={parent.terminal} />. That run is unchanged; this is a new run pointing back at it.
        </p>
      ) : null}

      {run.status === 'running' ? <p className="notice">This run is still running. Reload to see more of it.</p> : null}
      {run.status === 'interrupted' ? (
        <p className="notice notice-warn">This run was interrupted before it finished (the agent stopped mid-run). What it recorded is below.</p>
      ) : null}
      {run.status === 'failed' ? (
        <p className="notice notice-bad">
          This run failed. Its trace shows where.
          {run.error ? (
            <>
              {' '}
              The agent recorded: <code>{typeof run.error === 'string' ? run.error : JSON.stringify(run.error)}</code>
            </>
          ) : null}
        </p>
      ) : null}

      <RunOutcome view={recordedOutcome(detail.value)} />

      {awaiting ? (
        <section className="approval" aria-label="Approval">
          <h2>Approval</h2>
          {children.length > 0 ? (
            <p className="link-note link-children">
              Approved:{' '}
              {children.map((c, i) => (
                <span key={c.id}>
                  {i > 0 ? ', ' : ''}
                  <a href={`/runs/${encodeURIComponent(c.id)}`} data-child={c.id}>
                    <code>{c.id}</code>
                  </a>{' '}
                  ({when(c.createdAt)}, ended at <TerminalTag terminal={c.terminal} />)
                </span>
              ))}
              .
            </p>
          ) : run.sessionOwned ? (
            <ApproveForm runId={run.id} />
          ) : (
            <p className="muted">
              Waiting for approval by the session that asked. This browser is not that session, so it cannot approve (the agent checks; the session is a cookie,
              not a login).
            </p>
          )}
        </section>
      ) : children.length > 0 ? (
        <p className="link-note link-children">
          Runs created from this one:{' '}
          {children.map((c, i) => (
            <span key={c.id}>
              {i > 0 ? ', ' : ''}
              <a href={`/runs/${encodeURIComponent(c.id)}`} data-child={c.id}>
                <code>{c.id}</code>
              </a>
            </span>
          ))}
        </p>
      ) : null}

      {run.verdict ? (
        <FeedbackForm
          runId={run.id}
          verdict={run.verdict}
          current={feedback ?? null}
          saved={saved}
          cacheNotRemoved={first(query[CACHE_NOT_REMOVED.param]) === CACHE_NOT_REMOVED.value}
          problem={duringFeedback ? carried : null}
          kept={keptFeedback}
          replaced={replaced}
        />
      ) : null}

      <div className="run-grid">
        <section>
          <h2>Trace</h2>
          <Timeline events={spans} />
        </section>
        <section>
          <h2>Models</h2>
          {failover ? <p className="failover">{failover}</p> : null}
          <ProviderEvents events={providerEvents} />
          <h2>Spend</h2>
          <SpendSummary spend={spend} />
        </section>
      </div>
    </article>
  );
}
