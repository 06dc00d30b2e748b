import type { Metadata } from 'next';
import { ProblemPanel } from '@/components/problem';
import { attempt, listInvestigations } from '@/lib/agent';
import { when } from '@/lib/format';
import { formFromQuery, inputRefusal, investigationHref } from '@/lib/investigation-forms';
import { problemFromQuery } from '@/lib/problems';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Investigations' };

/** The Investigations section (issue 10): every investigation, newest first, and a plain form to start one. */
export default async function InvestigationsPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const carried = problemFromQuery(params);
  const refusal = carried && formFromQuery(params.during) === 'new' ? inputRefusal('new', carried.code) : null;
  const deleted = params.deleted === '1';
  const list = await attempt(() => listInvestigations());
  return (
    <>
      <header className="page-head">
        <h1>Investigations</h1>
        <p className="lede">
          An incident’s own material — logs, configs, command output — and a conversation about it. Every answer cites the file lines or runbook passages it
          stands on.
        </p>
      </header>
      <section id="new" aria-label="New investigation" className="console-form">
        <form method="post" action="/api/investigations" className="investigation-new">
          <h2 className="field-label">New investigation</h2>
          <label className="field-label" htmlFor="investigation-title">
            Title
          </label>
          <input id="investigation-title" name="title" type="text" dir="auto" maxLength={200} placeholder="checkout 502s 2024-05-01" className="text-input" />
          <div className="form-actions">
            <button type="submit" className="button button-primary">
              Create
            </button>
          </div>
        </form>
        {refusal ? (
          <p className="notice notice-bad" role="alert" data-problem={carried?.code}>
            {refusal}
          </p>
        ) : carried ? (
          <ProblemPanel problem={carried} context={formFromQuery(params.during) === 'new' ? 'The investigation was not created.' : undefined} />
        ) : null}
      </section>
      {deleted && !carried ? <p className="notice investigation-deleted">The investigation was deleted, with its files and conversation.</p> : null}
      <h2>All investigations</h2>
      {!list.ok ? (
        <ProblemPanel problem={list.problem} context="The investigations could not be loaded." />
      ) : list.value.length === 0 ? (
        <p className="empty">No investigations yet: create one above, then upload the incident’s files.</p>
      ) : (
        <div className="table-scroll">
          <table className="runs-table investigations-table">
            <thead>
              <tr>
                <th>title</th>
                <th className="num">files</th>
                <th className="num">messages</th>
                <th>created (UTC)</th>
              </tr>
            </thead>
            <tbody>
              {list.value.map((inv) => (
                <tr key={inv.id} data-investigation-id={inv.id}>
                  <td>
                    {/* A title's own direction, isolated from the table's (S-240). */}
                    <a href={investigationHref(inv.id)}>
                      <bdi>{inv.title}</bdi>
                    </a>
                  </td>
                  <td className="num">{inv.fileCount}</td>
                  <td className="num">{inv.messageCount}</td>
                  <td className="nowrap">{when(inv.createdAt).replace(' UTC', '')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
