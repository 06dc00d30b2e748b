import { sendToPage } from '@/lib/form-door';
import { AgentProblem, callerFromRequest, uploadInvestigationFile } from '@/lib/agent';
import { backWithProblem, INVESTIGATION_ID, investigationHref, seeOther } from '@/lib/investigation-forms';
import { crossSite, crossSiteRefusal } from '@/lib/same-origin';

/*
 * POST /api/investigations/:id/files — the upload form's target. A browser
 * without JavaScript can only send a file as multipart/form-data, so the file
 * is taken out of the form here and its bytes forwarded unchanged as the raw
 * body of the agent's PUT …/files/<name>. Whether it is text, and whether it is
 * too large, is the agent's decision (one rule, every door): its refusal comes
 * back to the workspace named, and nothing is stored.
 */

export const dynamic = 'force-dynamic';

/** Reloaded or followed from the history: the page the form is on. */
export const GET = sendToPage(({ id }) => `/investigations/${id}#files`);

export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  if (crossSite(request)) return crossSiteRefusal();
  const { id } = await params;
  if (!INVESTIGATION_ID.test(id)) return seeOther('/investigations?error=not_found');
  const page = investigationHref(id);

  let file: File | null = null;
  try {
    const value = (await request.formData()).get('file');
    file = value instanceof File ? value : null;
  } catch {
    /* not a form: refused below like a form without a file */
  }
  // A browser sends an empty, unnamed part when no file was chosen. Said as that, not as the agent's refusal of a
  // file's content ("only text files are accepted"), which is not what happened (S-197).
  if (!file || file.name === '') return seeOther(`${page}?nofile=1#files`);

  try {
    // The browser sends the file's base name only; that is its path at the workspace root.
    const saved = await uploadInvestigationFile(id, file.name, new Uint8Array(await file.arrayBuffer()), callerFromRequest(request));
    return seeOther(`${page}?uploaded=${encodeURIComponent(saved.path)}#files`);
  } catch (error) {
    if (!(error instanceof AgentProblem)) throw error;
    return backWithProblem(page, error.problem, 'upload', 'files');
  }
}
