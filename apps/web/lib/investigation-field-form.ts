import { AgentProblem } from './agent';
import { backWithProblem, type InvestigationForm, INVESTIGATION_ID, investigationHref, seeOther } from './investigation-forms';
import { crossSite, crossSiteRefusal } from './same-origin';

/**
 * A form route that posts one text field about an investigation (rename it, remove a file, ask a question). Each
 * refuses in the same order: a cross-site post; an id that names no investigation; an empty field, before any
 * agent call (the agent refuses it as well). Then the agent acts, and the browser is sent where `act` says (303),
 * or back to the form with the agent's problem named.
 */
export function investigationFieldForm(form: {
  readonly field: string;
  readonly during: InvestigationForm;
  readonly anchor: string;
  /** Carry a refused value back to its field (a message typed at length), rather than an empty box. */
  readonly keep?: boolean;
  /** The agent call; returns where to send the browser. `value` is the field as posted, never empty. */
  readonly act: (id: string, value: string, request: Request, page: string) => Promise<string>;
}) {
  return async (request: Request, { params }: { params: Promise<{ id: string }> }): Promise<Response> => {
    if (crossSite(request)) return crossSiteRefusal();
    const { id } = await params;
    if (!INVESTIGATION_ID.test(id)) return seeOther('/investigations?error=not_found');
    const page = investigationHref(id);
    let value = '';
    try {
      const posted = (await request.formData()).get(form.field);
      value = typeof posted === 'string' ? posted : '';
    } catch {
      /* not a form: refused below like an empty field */
    }
    if (value.trim() === '') return backWithProblem(page, { code: 'invalid_request', status: 400 }, form.during, form.anchor);
    try {
      return seeOther(await form.act(id, value, request, page));
    } catch (error) {
      if (!(error instanceof AgentProblem)) throw error;
      return backWithProblem(page, error.problem, form.during, form.anchor, form.keep ? value : undefined);
    }
  };
}
