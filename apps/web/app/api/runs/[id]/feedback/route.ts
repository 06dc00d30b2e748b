import { sendToPage } from '@/lib/form-door';
import { AgentProblem, callerFromRequest, markRun } from '@/lib/agent';
import { CACHE_NOT_REMOVED, isFeedbackLabel, MAX_EVIDENCE_CHARS, MAX_NOTE_CHARS } from '@/lib/feedback-labels';
import { CUT_PARAM, KEPT_TEXT_URL_BYTES, keptForUrl } from '@/lib/kept-text';
import { type Problem, problemQuery } from '@/lib/problems';
import { refusalWordsCookie } from '@/lib/refusal-words';
import { replacedMarkCookie } from '@/lib/replaced-mark';
import { crossSite, crossSiteRefusal } from '@/lib/same-origin';

/*
 * POST /api/runs/:id/feedback — the "Was this right?" form's target. A plain
 * form post, so it works with JavaScript off: the mark goes to the agent with
 * the token (the browser never talks to the agent, T-12) and the browser is
 * sent back (303) to the run, which shows the mark — or names what went wrong
 * next to the form. The agent keeps one mark per run: this replaces any earlier one, and the page says which
 * (S-289: the mark it replaced rides back in a cookie, lib/replaced-mark.ts). The passage that answers (`evidence`,
 * S-286) goes as typed: the agent matches it to a passage of its library, or says why it cannot.
 */

export const dynamic = 'force-dynamic';

/** Reloaded or followed from the history: the page the form is on. */
export const GET = sendToPage(({ id }) => `/runs/${id}#feedback`);

const RUN_ID = /^[A-Za-z0-9_-]{1,100}$/;

/** The most of the URL a refused mark's passage takes, encoded: a passage id or a sentence fits whole. */
const EVIDENCE_URL_BYTES = 2_000;

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
function failed(id: string, problem: Problem, posted: { label: unknown; note: unknown; evidence: unknown }): Response {
  // What was posted goes back too (S-224): the form came back with no answer chosen and the note's box empty, the words
  // lost. The note is cut to fit the URL by its encoded length, as a refused question is (S-223), and the page says so.
  const query = new URLSearchParams(problemQuery(problem));
  query.set('during', 'feedback');
  if (isFeedbackLabel(posted.label)) query.set('label', posted.label);
  // The passage as typed, too (a quotation the agent matched to no passage is what the person corrects): it is short, so
  // it is kept whole, or not at all, and the note has the rest of the room.
  const typed = typeof posted.evidence === 'string' ? posted.evidence.trim() : '';
  const evidence = typed ? keptForUrl(typed, MAX_EVIDENCE_CHARS, EVIDENCE_URL_BYTES) : null;
  if (evidence && !evidence.cut) query.set('evidence', evidence.text);
  const room = KEPT_TEXT_URL_BYTES - (evidence && !evidence.cut ? EVIDENCE_URL_BYTES : 0);
  const note = typeof posted.note === 'string' ? keptForUrl(posted.note, MAX_NOTE_CHARS * 2, room) : null;
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
  let evidence: FormDataEntryValue | null = null;
  try {
    const form = await request.formData();
    label = form.get('label');
    note = form.get('note');
    evidence = form.get('evidence');
  } catch {
    /* not a form: refused below like an empty one */
  }
  const posted = { label, note, evidence };
  // Checked here too, so a hand-made post is refused in the site's words before it costs an agent call.
  const text = typeof note === 'string' ? note.trim() : '';
  const passage = typeof evidence === 'string' ? evidence.trim() : '';
  if (!isFeedbackLabel(label) || [...text].length > MAX_NOTE_CHARS || [...passage].length > MAX_EVIDENCE_CHARS) {
    return failed(id, { code: 'invalid_request', status: 400 }, posted);
  }

  try {
    const { cache, replaced, setCookies } = await markRun(id, { label, note: text || null, evidence: passage || null }, callerFromRequest(request));
    // S-264: a wrong-answer mark whose cached answer the agent could not remove says so on the page, not "no longer served … " alone.
    return backToRun(id, cache?.removed === false ? `marked=1&${CACHE_NOT_REMOVED.param}=${CACHE_NOT_REMOVED.value}` : 'marked=1', [
      ...setCookies,
      replacedMarkCookie(id, replaced),
    ]);
  } catch (error) {
    if (!(error instanceof AgentProblem)) throw error;
    return failed(id, error.problem, posted);
  }
}
