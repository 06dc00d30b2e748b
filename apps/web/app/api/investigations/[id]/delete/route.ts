import { sendToPage } from '@/lib/form-door';
import { AgentProblem, callerFromRequest, deleteInvestigation } from '@/lib/agent';
import { backWithProblem, INVESTIGATION_ID, investigationHref, seeOther } from '@/lib/investigation-forms';
import { crossSite, crossSiteRefusal } from '@/lib/same-origin';

/*
 * POST /api/investigations/:id/delete — the delete form's target. The form
 * carries a `confirm` box: a stray click (or a prefetch) deletes nothing. The
 * agent deletes the investigation with its files and conversation; the
 * browser goes (303) to the list, which says what was deleted.
 */

export const dynamic = 'force-dynamic';

/** Reloaded or followed from the history: the page the form is on. */
export const GET = sendToPage(({ id }) => `/investigations/${id}`);

export async function POST(request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> {
  if (crossSite(request)) return crossSiteRefusal();
  const { id } = await params;
  if (!INVESTIGATION_ID.test(id)) return seeOther('/investigations?error=not_found');
  const page = investigationHref(id);
  let confirmed = false;
  try {
    confirmed = (await request.formData()).get('confirm') === 'yes';
  } catch {
    /* not a form: not confirmed */
  }
  if (!confirmed) return seeOther(`${page}?unconfirmed=1#manage`);
  try {
    await deleteInvestigation(id, callerFromRequest(request));
    return seeOther('/investigations?deleted=1');
  } catch (error) {
    if (!(error instanceof AgentProblem)) throw error;
    return backWithProblem(page, error.problem, 'delete', 'manage');
  }
}
