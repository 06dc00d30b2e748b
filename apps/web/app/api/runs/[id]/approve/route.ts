import { sendToPage } from '@/lib/form-door';
import { AgentProblem, approveRun, callerFromRequest } from '@/lib/agent';
import { alreadyApproved } from '@/lib/approvals';
import { type Problem, problemQuery } from '@/lib/problems';
import { refusalWordsCookie } from '@/lib/refusal-words';
import { crossSite, crossSiteRefusal } from '@/lib/same-origin';

/*
 * POST /api/runs/:id/approve — the Approve button's form target (works with
 * JavaScript off). The agent checks the session that asked is the one approving
 * (403 otherwise) and creates a NEW run pointing back at the gated one
 * (seed ADR-0006); the browser is sent to that new run.
 */

export const dynamic = 'force-dynamic';

/** Reloaded or followed from the history: the page the form is on. */
export const GET = sendToPage(({ id }) => `/runs/${id}`);

const RUN_ID = /^[A-Za-z0-9_-]{1,100}$/;

function seeOther(path: string, setCookies: readonly string[] = []): Response {
  const headers = new Headers({ location: path });
  for (const c of setCookies) headers.append('set-cookie', c);
  return new Response(null, { status: 303, headers });
}

/**
 * Where a refused approval sends the browser. A run the agent does not have goes to the runs list with the problem
 * named: its own page is a 404 that, without JavaScript, rendered blank but for the title — the problem lost. A run
 * approved before goes back to itself saying so, with the run that approval created when the agent names it.
 *
 * The agent's reason rides in a cookie on the same 303, as the console's and the upload form's do (lib/refusal-words.ts),
 * for the code the URL names and `during=approval`: an approval refused without JavaScript said the code's generic
 * line alone, never the agent's "run … was requested by another session".
 */
function refusedApproval(id: string, problem: Problem): Response {
  if (problem.code === 'not_found') return seeOther(`/runs?${problemQuery(problem)}&during=approval`, [refusalWordsCookie(problem, 'approval')]);
  const approved = alreadyApproved(problem);
  const shown: Problem = approved ? { ...problem, code: 'already_approved' } : problem;
  const by = approved?.by ? `&approvedBy=${encodeURIComponent(approved.by)}` : '';
  return seeOther(`/runs/${encodeURIComponent(id)}?${problemQuery(shown)}&during=approval${by}`, [refusalWordsCookie(shown, 'approval')]);
}

export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  if (crossSite(request)) return crossSiteRefusal();
  const { id } = await params;
  if (!RUN_ID.test(id)) return refusedApproval(id, { code: 'not_found', status: 404 });
  try {
    const { run, setCookies } = await approveRun(id, callerFromRequest(request));
    return seeOther(`/runs/${encodeURIComponent(run.runId)}?approvedFrom=${encodeURIComponent(id)}`, setCookies);
  } catch (error) {
    if (!(error instanceof AgentProblem)) throw error;
    return refusedApproval(id, error.problem);
  }
}
