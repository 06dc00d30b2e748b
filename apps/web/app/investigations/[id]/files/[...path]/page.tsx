import { fileLines } from '@sandscope/api/investigations';
import type { Metadata } from 'next';
import { NotFoundHere } from '@/components/not-found-here';
import { ProblemPanel } from '@/components/problem';
import { attempt, getInvestigationFile } from '@/lib/agent';
import { fileWindow } from '@/lib/file-window';
import { when } from '@/lib/format';
import { citedRange, INVESTIGATION_ID, investigationHref } from '@/lib/investigation-forms';
import NotFound from '@/app/not-found';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'File' };

/**
 * One workspace file with line numbers — where a citation lands. The cited
 * range comes in the query (highlighted by the server, so it works without
 * JavaScript) and the fragment (`#L4312`) scrolls the browser to it. Line n is
 * the agent's line n: the same split the tools count with (a final newline
 * ends the last line rather than starting another).
 */
const count = (n: number, unit: string) => `${n.toLocaleString('en')} ${unit}${n === 1 ? '' : 's'}`;
const citedLines = (r: { start: number; end: number }) => (r.start === r.end ? `line ${r.start}` : `lines ${r.start}–${r.end}`);

export default async function InvestigationFilePage({
  params,
  searchParams,
}: {
  params: Promise<{ id: string; path: string[] }>;
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const { id, path: segments } = await params;
  if (!INVESTIGATION_ID.test(id))
    return (
      <NotFoundHere>
        <NotFound />
      </NotFoundHere>
    );
  const path = segments.map((s) => decodeURIComponent(s)).join('/');
  const query = await searchParams;
  const range = citedRange(query.lines);
  const file = await attempt(() => getInvestigationFile(id, path));
  // A path the agent refuses (`../../x`, outside the workspace) names no file here either: the same 404. It used to
  // reach the agent as another route, and now reaches it whole (lib/agent.ts filePath).
  if (!file.ok && (file.problem.code === 'not_found' || file.problem.code === 'invalid_request'))
    return (
      <NotFoundHere>
        <NotFound />
      </NotFoundHere>
    );
  const back = (
    <p className="crumbs">
      <a href="/investigations">Investigations</a> / <a href={`${investigationHref(id)}#files`}>this investigation</a>
    </p>
  );
  if (!file.ok) {
    return (
      <>
        {back}
        <ProblemPanel problem={file.problem} context={`${path} could not be read.`} />
      </>
    );
  }
  // The agent's own split (S-272): this page split at \n and \r\n only, so a log whose lines end in a bare \r was one
  // line here while the agent cited its lines 2, 3, 4 — every citation of it "past the end of this file".
  const lines = fileLines(file.value.content);
  const shown = fileWindow(lines.length, range, query.from);
  const citedAt = typeof query.at === 'string' && !Number.isNaN(Date.parse(query.at)) ? query.at : null;
  const replaced = range !== null && citedAt !== null && Date.parse(file.value.createdAt) > Date.parse(citedAt);
  const pageAt = (from: number) => `?${new URLSearchParams({ ...(range ? { lines: `${range.start}-${range.end}` } : {}), from: String(from) })}`;
  const paging =
    shown.earlier === null && shown.later === null ? null : (
      <p className="muted file-window" data-testid="file-window">
        Lines {shown.first.toLocaleString('en')}–{shown.last.toLocaleString('en')} of {lines.length.toLocaleString('en')}
        {shown.earlier !== null ? (
          <>
            {' '}
            · <a href={pageAt(shown.earlier)}>earlier lines</a>
          </>
        ) : null}
        {shown.later !== null ? (
          <>
            {' '}
            · <a href={pageAt(shown.later)}>later lines</a>
          </>
        ) : null}
      </p>
    );
  return (
    <>
      <header className="page-head">
        {back}
        <h1>
          <code>{file.value.path}</code>
        </h1>
        <p className="muted">
          {count(lines.length, 'line')} · {count(file.value.sizeBytes, 'byte')}
          {range && range.start <= lines.length ? (
            <>
              {' '}
              · cited: <a href={`#L${range.start}`}>{citedLines(range)}</a>
            </>
          ) : null}
        </p>
        {replaced ? (
          <p className="notice notice-warn" data-testid="file-replaced">
            This file was uploaded at {when(file.value.createdAt)}, after the answer that cited it ({when(citedAt)}): the cited {citedLines(range)} may not be
            the {range.start === range.end ? 'line' : 'lines'} it quoted.
          </p>
        ) : null}
        {range && range.start > lines.length ? (
          // A citation past the last line means the file changed after the turn cited it (a file of the same name
          // replaced it): say so, rather than show a page with nothing highlighted.
          <p className="notice" data-testid="cited-past-end">
            The cited {citedLines(range)} {range.start === range.end ? 'is' : 'are'} past the end of this file, which has {count(lines.length, 'line')}: a file
            of this name may have replaced the one the turn cited.
          </p>
        ) : null}
      </header>
      {paging}
      <table className="file-lines" data-testid="file-lines">
        <tbody>
          {lines.slice(shown.first - 1, shown.last).map((text, i) => {
            const n = shown.first + i;
            const cited = range !== null && n >= range.start && n <= range.end;
            return (
              <tr key={n} id={`L${n}`} {...(cited ? { className: 'cited', 'data-cited': 'true' } : {})}>
                <td className="line-number">
                  <a href={`#L${n}`}>{n}</a>
                </td>
                <td className="line-text">
                  <code>{text}</code>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {paging}
    </>
  );
}
