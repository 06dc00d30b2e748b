import { sendToPage } from '@/lib/form-door';
import { AgentProblem, callerFromRequest, createInvestigation } from '@/lib/agent';
import { backWithProblem, investigationHref, seeOther } from '@/lib/investigation-forms';
import { crossSite, crossSiteRefusal } from '@/lib/same-origin';

/*
 * POST /api/investigations — the "New investigation" form's target: creates it
 * on the agent (with the token; the browser never talks to the agent, T-12) and
 * sends the browser (303) to its workspace, or back to the list with the problem.
 */

export const dynamic = 'force-dynamic';

/** Reloaded or followed from the history: the page the form is on. */
export const GET = sendToPage(() => '/investigations');

export async function POST(request: Request): Promise<Response> {
  if (crossSite(request)) return crossSiteRefusal();
  let title = '';
  try {
    const value = (await request.formData()).get('title');
    title = typeof value === 'string' ? value.trim() : '';
  } catch {
    /* not a form: refused below like an empty title */
  }
  // Checked here too, so an empty title costs no agent call; the agent checks the rest (length).
  if (title === '') return backWithProblem('/investigations', { code: 'invalid_request', status: 400 }, 'new', 'new');
  try {
    return seeOther(investigationHref(await createInvestigation(title, callerFromRequest(request))));
  } catch (error) {
    if (!(error instanceof AgentProblem)) throw error;
    return backWithProblem('/investigations', error.problem, 'new', 'new');
  }
}
