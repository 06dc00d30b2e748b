import { sendToPage } from '@/lib/form-door';
import { AgentProblem, callerFromRequest, markRun } from '@/lib/agent';
import { isFeedbackLabel, MAX_NOTE_CHARS } from '@/lib/feedback-labels';
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
const failed = (id: string, problem: Problem) => backToRun(id, `${problemQuery(problem)}&during=feedback`, [refusalWordsCookie(problem, 'feedback')]);

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
  if (!isFeedbackLabel(label) || [...text].length > MAX_NOTE_CHARS) return failed(id, { code: 'invalid_request', status: 400 });

  try {
    const { setCookies } = await markRun(id, { label, note: text || null }, callerFromRequest(request));
    return backToRun(id, 'marked=1', setCookies);
  } catch (error) {
    if (!(error instanceof AgentProblem)) throw error;
    return failed(id, error.problem);
  }
}
