import { sendToPage } from '@/lib/form-door';
import { AgentProblem, callerFromRequest, markRun } from '@/lib/agent';
import { isFeedbackLabel, MAX_NOTE_CHARS } from '@/lib/feedback-labels';
import { CUT_PARAM, keptForUrl } from '@/lib/kept-text';
import { type Problem, problemQuery } from '@/lib/problems';
import { refusalWordsCookie } from '@/lib/refusal-words';
import { crossSite, crossSiteRefusal } from '@/lib/same-origin';

/*
 * POST /api/runs/:id/feedback — the "Was this right?" form's target. A plain
 * form post, so it works with JavaScript off: the mark goes to the agent with
 * the token (the browser never talks to the agent, T-12) and the browser is
 * sent back (303) to the run, which shows the mark — or names what went wrong
 * next to the form. The agent keeps one mark per run: this replaces any earlier one.
 */

export const dynamic = 'force-dynamic';

/** Reloaded or followed from the history: the page the form is on. */
export const GET = sendToPage(({ id }) => `/runs/${id}#feedback`);

const RUN_ID = /^[A-Za-z0-9_-]{1,100}$/;

function backToRun(id: string, query: string, setCookies: readonly string[] = []): Response {
  const headers = new Headers({ location: `/runs/${encodeURIComponent(id)}?${query}#feedback` });
  for (const c of setCookies) headers.append('set-cookie', c);
  return new Response(null, { status: 303, headers });
}

/**
 * Back to the form with the problem named, and the agent's reason in a cookie on the same 303, as the console's and
 * the upload form's refusals carry theirs (lib/refusal-words.ts): a mark refused without JavaScript said "choose one of
 * the three answers" alone, never the agent's "note contains a NUL character …".
 */
function failed(id: string, problem: Problem, posted: { label: unknown; note: unknown }): Response {
  // What was posted goes back too (S-224): the form came back with no answer chosen and the note's box empty, the words
  // lost. The note is cut to fit the URL by its encoded length, as a refused question is (S-223), and the page says so.
  const query = new URLSearchParams(problemQuery(problem));
  query.set('during', 'feedback');
  if (isFeedbackLabel(posted.label)) query.set('label', posted.label);
  const note = typeof posted.note === 'string' ? keptForUrl(posted.note, MAX_NOTE_CHARS * 2) : null;
  if (note?.text) query.set('note', note.text);
  if (note?.cut) query.set(CUT_PARAM, '1');
  return backToRun(id, query.toString(), [refusalWordsCookie(problem, 'feedback')]);
}

export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  if (crossSite(request)) return crossSiteRefusal();
  const { id } = await params;
  if (!RUN_ID.test(id)) return new Response(null, { status: 303, headers: { location: `/runs?${problemQuery({ code: 'not_found', status: 404 })}` } });

  let label: FormDataEntryValue | null = null;
  let note: FormDataEntryValue | null = null;
  try {
    const form = await request.formData();
    label = form.get('label');
    note = form.get('note');
  } catch {
    /* not a form: refused below like an empty one */
  }
  // Checked here too, so a hand-made post is refused in the site's words before it costs an agent call.
  const text = typeof note === 'string' ? note.trim() : '';
  if (!isFeedbackLabel(label) || [...text].length > MAX_NOTE_CHARS) return failed(id, { code: 'invalid_request', status: 400 }, { label, note });

  try {
    const { setCookies } = await markRun(id, { label, note: text || null }, callerFromRequest(request));
    return backToRun(id, 'marked=1', setCookies);
  } catch (error) {
    if (!(error instanceof AgentProblem)) throw error;
    return failed(id, error.problem, { label, note });
  }
}
