import { AgentProblem, callerFromRequest, renameInvestigation } from '@/lib/agent';
import { backWithProblem, INVESTIGATION_ID, investigationHref, seeOther } from '@/lib/investigation-forms';
import { crossSite, crossSiteRefusal } from '@/lib/same-origin';

/*
 * POST /api/investigations/:id/rename — the rename form's target: PATCH on the
 * agent, then back to the workspace (303) under its new title, or with the
 * problem named beside the form. An empty title costs no agent call.
 */

export const dynamic = 'force-dynamic';

export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  if (crossSite(request)) return crossSiteRefusal();
  const { id } = await params;
  if (!INVESTIGATION_ID.test(id)) return seeOther('/investigations?error=not_found');
  const page = investigationHref(id);
  let title = '';
  try {
    const value = (await request.formData()).get('title');
    title = typeof value === 'string' ? value.trim() : '';
  } catch {
    /* not a form: refused below like an empty title */
  }
  if (title === '') return backWithProblem(page, { code: 'invalid_request', status: 400 }, 'rename', 'manage');
  try {
    await renameInvestigation(id, title, callerFromRequest(request));
    return seeOther(`${page}?renamed=1`);
  } catch (error) {
    if (!(error instanceof AgentProblem)) throw error;
    return backWithProblem(page, error.problem, 'rename', 'manage');
  }
}
