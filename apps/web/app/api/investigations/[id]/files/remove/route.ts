import { AgentProblem, callerFromRequest, removeInvestigationFile } from '@/lib/agent';
import { backWithProblem, INVESTIGATION_ID, investigationHref, seeOther } from '@/lib/investigation-forms';
import { crossSite, crossSiteRefusal } from '@/lib/same-origin';

/*
 * POST /api/investigations/:id/files/remove — a file row's "Remove" button:
 * DELETE …/files/<path> on the agent, then back to the file list (303). The
 * path comes from the form; the agent resolves it inside the workspace or
 * refuses it, so a crafted path reaches nothing outside.
 */

export const dynamic = 'force-dynamic';

export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  if (crossSite(request)) return crossSiteRefusal();
  const { id } = await params;
  if (!INVESTIGATION_ID.test(id)) return seeOther('/investigations?error=not_found');
  const page = investigationHref(id);
  let path = '';
  try {
    const value = (await request.formData()).get('path');
    path = typeof value === 'string' ? value : '';
  } catch {
    /* not a form: refused below */
  }
  if (path.trim() === '') return backWithProblem(page, { code: 'invalid_request', status: 400 }, 'remove', 'files');
  try {
    await removeInvestigationFile(id, path, callerFromRequest(request));
    return seeOther(`${page}?removed=${encodeURIComponent(path)}#files`);
  } catch (error) {
    if (!(error instanceof AgentProblem)) throw error;
    return backWithProblem(page, error.problem, 'remove', 'files');
  }
}
