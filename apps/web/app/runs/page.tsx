import type { Metadata } from 'next';
import { cookies } from 'next/headers';
import { OutcomeTag, TerminalTag } from '@/components/outcome';
import { ProblemPanel } from '@/components/problem';
import { attempt, getRun, listRuns } from '@/lib/agent';
import type { RunSummary } from '@sandscope/api';
import { type Approval, approvalOf, gatedOnPage } from '@/lib/approvals';
import { score, shortId, usd, when } from '@/lib/format';
import { problemFromQuery } from '@/lib/problems';
import { REFUSAL_WORDS_COOKIE, withRefusalWords } from '@/lib/refusal-words';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Runs' };

const PAGE_SIZE = 20;

const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

export default async function RunsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const [params, jar] = await Promise.all([searchParams, cookies()]);
  const rawPage = Number(first(params.page));
  // A safe integer only: ?page=99999999999999999999 reached the agent as 1e20 and came back as "The question was not accepted".
  const page = Number.isSafeInteger(rawPage) && rawPage > 0 ? rawPage : 1;
  const fromQuery = problemFromQuery(params);
  // Read with first(), as the run page reads it and this page its `page` and `error`: `params.during === 'approval'`
  // was false for a repeated `?during=approval&during=…` (an array), so the approval's context and words were lost.
  const approval = first(params.during) === 'approval';
  // A refused approval of a run the agent does not have lands here; its reason is in this browser's cookie (lib/refusal-words.ts).
  const carried = fromQuery && approval ? withRefusalWords(fromQuery, 'approval', jar.get(REFUSAL_WORDS_COOKIE)?.value) : fromQuery;
  const list = await attempt(() => listRuns(page, PAGE_SIZE));
  const approvals = list.ok ? await approvalsOf(list.value.runs) : new Map<string, Approval>();
  return (
    <>
      <header className="page-head">
        <h1>Runs</h1>
        <p className="lede">Every question asked, newest first: what it concluded, where it stopped, and what it cost.</p>
      </header>
      {carried ? (
        <ProblemPanel
          problem={carried}
          // The approve form's door sends a run the agent does not have here: that run's own page is a 404.
          context={approval && carried.code === 'not_found' ? 'There is no such run to approve, so nothing was approved.' : undefined}
        />
      ) : null}
      {!list.ok ? (
        <ProblemPanel problem={list.problem} context="The run list could not be loaded." />
      ) : list.value.runs.length === 0 && list.value.total > 0 ? (
        // Past the last page there are runs, just not here: "No runs yet" said otherwise.
        <p className="empty" data-testid="past-last-page">
          Page {list.value.page} is past the last page of runs.{' '}
          <a href={`/runs?page=${Math.ceil(list.value.total / list.value.pageSize)}`}>Go to the last page</a> or <a href="/runs">the newest runs</a>.
        </p>
      ) : list.value.runs.length === 0 ? (
        <p className="empty">
          No runs yet. <a href="/">Ask a question on the console</a>.
        </p>
      ) : (
        <>
          <div className="table-scroll">
            {/* On a narrow screen the `col-detail` columns go first, then `col-context`: the outcome stays in view (issue 13). */}
            <table className="runs-table">
              <thead>
                <tr>
                  <th>run</th>
                  <th className="col-context">asked (UTC)</th>
                  <th>question</th>
                  <th className="col-context">workload</th>
                  <th>outcome</th>
                  <th className="col-detail">ended at</th>
                  <th className="num col-detail">score</th>
                  <th className="num col-detail">cost</th>
                  <th className="col-detail">approval of</th>
                </tr>
              </thead>
              <tbody>
                {list.value.runs.map((r) => (
                  <tr key={r.id} data-run-id={r.id}>
                    <td>
                      <a href={`/runs/${encodeURIComponent(r.id)}`} title={r.id}>
                        <code>{shortId(r.id)}</code>
                      </a>
                    </td>
                    <td className="nowrap col-context">{when(r.createdAt).replace(' UTC', '')}</td>
                    {/* Isolated for direction, as on the run's page (S-240). */}
                    <td className="question-cell" dir="auto">
                      {r.question}
                    </td>
                    <td className="col-context">{r.workload}</td>
                    <td>
                      <OutcomeCell run={r} approval={approvals.get(r.id)} />
                    </td>
                    <td className="col-detail">
                      <TerminalTag terminal={r.terminal} />
                    </td>
                    <td className="num col-detail">
                      <code>{score(r.score)}</code>
                    </td>
                    <td className="num col-detail">{usd(r.costUsd)}</td>
                    <td className="col-detail">
                      {r.parentRunId ? (
                        <a href={`/runs/${encodeURIComponent(r.parentRunId)}`} title={r.parentRunId}>
                          <code>{shortId(r.parentRunId)}</code>
                        </a>
                      ) : (
                        ''
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={list.value.page} pageSize={list.value.pageSize} total={list.value.total} />
        </>
      )}
    </>
  );
}

/**
 * Each gated run's approval (lib/approvals.ts): from the page's own rows when
 * they list the run that approved it, otherwise from the gated run's detail —
 * one read per such run, in parallel. The summary does not carry it, and the
 * agent's contract is left as it is for one column.
 */
async function approvalsOf(runs: readonly RunSummary[]): Promise<Map<string, Approval>> {
  const found = new Map<string, Approval>();
  await Promise.all(
    [...gatedOnPage(runs)].map(async ([id, children]) => {
      const onPage = approvalOf(children);
      if (onPage.kind === 'approved') return void found.set(id, onPage);
      const detail = await attempt(() => getRun(id));
      found.set(id, detail.ok ? approvalOf(detail.value.children) : { kind: 'unknown' });
    }),
  );
  return found;
}

/** The run's outcome; for a gated run, what happened next — approved by which run — instead of a stale "awaiting approval". */
function OutcomeCell({ run, approval }: { run: RunSummary; approval: Approval | undefined }) {
  const status = run.status !== 'completed' ? <span className={`tag tag-${run.status}`}>{run.status}</span> : null;
  if (approval?.kind === 'approved') {
    return (
      <>
        <span className="tag tag-approved" data-approval="approved" title="It stopped for approval; a person approved it, which created a new run.">
          approved
        </span>{' '}
        <span className="nowrap">
          by{' '}
          <a href={`/runs/${encodeURIComponent(approval.by)}`} title={approval.by}>
            <code>{shortId(approval.by)}</code>
          </a>
        </span>
      </>
    );
  }
  return (
    <>
      <OutcomeTag outcome={run.outcome} status={run.status} />
      {status}
      {approval?.kind === 'unfinished' ? (
        <span className="muted" data-approval="unfinished">
          {' '}
          approval run{' '}
          <a href={`/runs/${encodeURIComponent(approval.by)}`} title={approval.by}>
            <code>{shortId(approval.by)}</code>
          </a>{' '}
          did not finish
        </span>
      ) : null}
      {approval?.kind === 'unknown' ? (
        <span className="muted" data-approval="unknown">
          {' '}
          (whether it was approved could not be read)
        </span>
      ) : null}
    </>
  );
}

function Pager({ page, pageSize, total }: { page: number; pageSize: number; total: number }) {
  const pages = Math.max(1, Math.ceil(total / Math.max(1, pageSize)));
  return (
    <nav className="pager" aria-label="Pages">
      {page > 1 ? <a href={`/runs?page=${page - 1}`}>← newer</a> : <span />}
      <span>
        page {page} of {pages} · {total} runs
      </span>
      {page < pages ? <a href={`/runs?page=${page + 1}`}>older →</a> : <span />}
    </nav>
  );
}
