import type { Metadata } from 'next';
import { cookies } from 'next/headers';
import { fileLinesHref, InvestigationAnswer } from '@/components/investigation-answer';
import { NotFoundHere } from '@/components/not-found-here';
import { InlineProblemWords, ProblemPanel } from '@/components/problem';
import { UnansweredQuestion } from '@/components/unanswered-question';
import { attempt, getInvestigation } from '@/lib/agent';
import { when } from '@/lib/format';
import { formFromQuery, type InvestigationForm, inputRefusal, INVESTIGATION_ID } from '@/lib/investigation-forms';
import { CUT_PARAM, cutNotice } from '@/lib/kept-text';
import { type Problem, problemFromQuery } from '@/lib/problems';
import { REFUSAL_WORDS_COOKIE, withRefusalWords } from '@/lib/refusal-words';
import NotFound from '@/app/not-found';

export const dynamic = 'force-dynamic';
export const metadata: Metadata = { title: 'Investigation' };

type Params = Record<string, string | string[] | undefined>;

/**
 * A refused form, said next to that form: the person's own input in the site's words, anything else as the problem it
 * is. The site's words are what every such refusal has in common; the agent's own reason follows when this browser's
 * post left it (lib/refusal-words.ts) — a path refused for leaving the workspace read only "only text files are
 * accepted" (S-197).
 */
function FormProblem({ problem, during, context }: { problem: Problem; during: InvestigationForm; context: string }) {
  const refusal = inputRefusal(during, problem.code);
  return refusal ? (
    <p className="notice notice-bad" role="alert" data-problem={problem.code}>
      {refusal}
      <InlineProblemWords problem={problem} />
    </p>
  ) : (
    <ProblemPanel problem={problem} context={context} />
  );
}

/**
 * An investigation's workspace: its files (status, and the reason a file is
 * `error`), its conversation with each answer's claims, citations, tool calls
 * and metrics — all read from what the agent stored, so a reload shows what the
 * turn showed — and the two forms (upload, ask), which work without JavaScript.
 */
export default async function InvestigationPage({ params, searchParams }: { params: Promise<{ id: string }>; searchParams: Promise<Params> }) {
  const { id } = await params;
  if (!INVESTIGATION_ID.test(id))
    return (
      <NotFoundHere>
        <NotFound />
      </NotFoundHere>
    );
  const [query, jar] = await Promise.all([searchParams, cookies()]);
  const during = formFromQuery(query.during);
  const fromQuery = problemFromQuery(query);
  const carried = fromQuery && during ? withRefusalWords(fromQuery, during, jar.get(REFUSAL_WORDS_COOKIE)?.value) : fromQuery;
  const noFile = query.nofile === '1';
  const uploaded = typeof query.uploaded === 'string' ? query.uploaded : null;
  const removed = typeof query.removed === 'string' ? query.removed : null;
  const renamed = query.renamed === '1';
  const unconfirmed = query.unconfirmed === '1';
  const loaded = await attempt(() => getInvestigation(id));
  if (!loaded.ok && loaded.problem.code === 'not_found')
    return (
      <NotFoundHere>
        <NotFound />
      </NotFoundHere>
    );
  if (!loaded.ok) {
    return (
      <>
        <p className="crumbs">
          <a href="/investigations">Investigations</a>
        </p>
        <ProblemPanel problem={loaded.problem} context="The investigation could not be loaded." />
      </>
    );
  }
  const { investigation, files, messages } = loaded.value;
  return (
    <>
      <header className="page-head">
        <p className="crumbs">
          <a href="/investigations">Investigations</a>
        </p>
        {/* The title and the messages typed here keep their own direction, isolated (S-240). */}
        <h1 dir="auto">{investigation.title}</h1>
        <p className="muted">
          Created {when(investigation.createdAt)} · <code>{investigation.id}</code>
        </p>
      </header>

      <section id="files" aria-label="Files" className="investigation-files">
        <h2>Files</h2>
        {files.length === 0 ? (
          <p className="empty">No files yet. Upload the incident’s logs, configs or command output (text files).</p>
        ) : (
          <table className="runs-table files-table">
            <thead>
              <tr>
                <th>file</th>
                <th className="num">size</th>
                <th>status</th>
                <th>
                  <span className="visually-hidden">remove</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {files.map((f) => (
                <tr key={f.path} data-file={f.path} data-status={f.status}>
                  <td>
                    <a href={fileLinesHref(id, f.path)}>
                      <code>{f.path}</code>
                    </a>
                  </td>
                  <td className="num">{f.sizeBytes.toLocaleString('en')} bytes</td>
                  <td>
                    {f.status === 'ok' ? (
                      <span className="tag tag-provider-served">ok</span>
                    ) : (
                      <>
                        <span className="tag tag-provider-failed">error</span> <span className="file-error">{f.error}</span>
                      </>
                    )}
                  </td>
                  <td>
                    <form method="post" action={`/api/investigations/${encodeURIComponent(id)}/files/remove`} className="inline-form">
                      <input type="hidden" name="path" value={f.path} />
                      <button type="submit" className="button button-small" aria-label={`Remove ${f.path}`}>
                        Remove
                      </button>
                    </form>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {uploaded && !carried ? <p className="notice upload-saved">Added {uploaded}.</p> : null}
        {noFile && !carried ? (
          <p className="notice notice-bad" role="alert">
            Nothing was uploaded: no file was chosen — choose a file with the field below, then press Upload.
          </p>
        ) : null}
        {removed && !carried ? <p className="notice file-removed">Removed {removed}. The other files and the conversation are kept.</p> : null}
        {carried && during === 'upload' ? <FormProblem problem={carried} during="upload" context="The file was not added." /> : null}
        {carried && during === 'remove' ? <FormProblem problem={carried} during="remove" context="No file was removed." /> : null}
        <form method="post" action={`/api/investigations/${encodeURIComponent(id)}/files`} encType="multipart/form-data" className="upload-form">
          <label className="field-label" htmlFor="upload-file">
            Upload a file
          </label>
          <input id="upload-file" type="file" name="file" />
          <button type="submit" className="button">
            Upload
          </button>
          <p className="hint">A file with the same name replaces the one there. Text only: logs, configs, command output.</p>
        </form>
      </section>

      <section id="conversation" aria-label="Conversation" className="conversation">
        <h2>Conversation</h2>
        {messages.length === 0 ? <p className="empty">Nothing asked yet.</p> : null}
        <ol className="messages">
          {messages.map((m) => (
            <li key={m.id} id={`message-${m.id}`} className={`message message-${m.role}`} data-role={m.role}>
              {m.role === 'user' ? (
                <>
                  <p className="message-text" dir="auto">
                    {m.text}
                  </p>
                  {m.interrupted ? <UnansweredQuestion interruption={m.interrupted} /> : null}
                </>
              ) : (
                <InvestigationAnswer investigationId={id} message={m} />
              )}
            </li>
          ))}
        </ol>
      </section>

      <section id="ask" aria-label="Ask" className="console-form">
        <form method="post" action={`/api/investigations/${encodeURIComponent(id)}/turns`}>
          <label className="field-label" htmlFor="turn-message">
            Message
          </label>
          {/* Not `required`: an empty message is refused by the server in words, the same with JavaScript on or off. */}
          <textarea
            id="turn-message"
            name="message"
            dir="auto"
            rows={3}
            placeholder="why did checkout return 502?"
            defaultValue={during === 'turn' && typeof query.message === 'string' ? query.message : undefined}
          />
          <div className="form-actions">
            <button type="submit" className="button button-primary">
              Ask
            </button>
            <span className="muted">Follow-ups read the conversation so far (“and when did it start?”).</span>
          </div>
        </form>
        {/* Not "Nothing was asked": a turn stopped mid-way (a shutdown, S-269) has its question stored, marked not answered above. */}
        {carried && during === 'turn' ? <FormProblem problem={carried} during="turn" context="The question was not answered." /> : null}
        {during === 'turn' && query[CUT_PARAM] === '1' && typeof query.message === 'string' ? (
          <p className="notice message-cut" data-cut="message">
            {cutNotice(query.message, 'message')}
          </p>
        ) : null}
        {carried && during === null ? <ProblemPanel problem={carried} /> : null}
      </section>

      <section id="manage" aria-label="Manage" className="console-form investigation-manage">
        <h2>Manage</h2>
        {renamed && !carried ? <p className="notice investigation-renamed">Renamed.</p> : null}
        {carried && during === 'rename' ? <FormProblem problem={carried} during="rename" context="The investigation was not renamed." /> : null}
        <form method="post" action={`/api/investigations/${encodeURIComponent(id)}/rename`} className="investigation-rename">
          <label className="field-label" htmlFor="investigation-new-title">
            New title
          </label>
          {/* Not `required`: an empty title is refused by the server in words, the same with JavaScript on or off. */}
          <input id="investigation-new-title" name="title" type="text" dir="auto" maxLength={200} defaultValue={investigation.title} className="text-input" />
          <div className="form-actions">
            <button type="submit" className="button">
              Rename
            </button>
          </div>
        </form>
        <form method="post" action={`/api/investigations/${encodeURIComponent(id)}/delete`} className="investigation-delete">
          <label className="confirm">
            {/* Worded without "message": the conversation's form is found by that label. */}
            <input type="checkbox" name="confirm" value="yes" /> Delete this investigation, its {files.length} file{files.length === 1 ? '' : 's'} and its
            conversation ({messages.length} entr{messages.length === 1 ? 'y' : 'ies'}). This cannot be undone.
          </label>
          <div className="form-actions">
            <button type="submit" className="button button-danger">
              Delete investigation
            </button>
          </div>
        </form>
        {unconfirmed && !carried ? (
          <p className="notice notice-bad" role="alert">
            Nothing was deleted: tick the box to confirm, then press Delete investigation.
          </p>
        ) : null}
        {carried && during === 'delete' ? <FormProblem problem={carried} during="delete" context="The investigation was not deleted." /> : null}
      </section>
    </>
  );
}
