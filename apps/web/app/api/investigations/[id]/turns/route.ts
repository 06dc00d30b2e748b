import { AgentProblem, askInvestigation, callerFromRequest } from '@/lib/agent';
import { backWithProblem, INVESTIGATION_ID, investigationHref, seeOther } from '@/lib/investigation-forms';
import { crossSite, crossSiteRefusal } from '@/lib/same-origin';

/*
 * POST /api/investigations/:id/turns — the message form's target. The turn is
 * run to its end here (the agent's JSON answer) and the browser sent back to the
 * workspace at the new answer: the page renders the stored conversation, so what
 * a person sees after asking is exactly what a reload shows (seed #22).
 */

export const dynamic = 'force-dynamic';

export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  if (crossSite(request)) return crossSiteRefusal();
  const { id } = await params;
  if (!INVESTIGATION_ID.test(id)) return seeOther('/investigations?error=not_found');
  const page = investigationHref(id);

  let message = '';
  try {
    const value = (await request.formData()).get('message');
    message = typeof value === 'string' ? value.trim() : '';
  } catch {
    /* not a form: refused below like an empty message */
  }
  // Checked here too, so an empty message costs no agent call (the agent refuses it as well).
  if (message === '') return backWithProblem(page, { code: 'invalid_request', status: 400 }, 'turn', 'ask');

  try {
    const turn = await askInvestigation(id, message, callerFromRequest(request));
    return seeOther(`${page}#message-${turn.messageId}`);
  } catch (error) {
    if (!(error instanceof AgentProblem)) throw error;
    return backWithProblem(page, error.problem, 'turn', 'ask');
  }
}
