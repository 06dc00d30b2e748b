import { sendToPage } from '@/lib/form-door';
import { callerFromRequest, renameInvestigation } from '@/lib/agent';
import { investigationFieldForm } from '@/lib/investigation-field-form';

/*
 * POST /api/investigations/:id/rename — the rename form's target: PATCH on the
 * agent, then back to the workspace (303) under its new title, or with the
 * problem named beside the form. An empty title costs no agent call.
 */

export const dynamic = 'force-dynamic';

/** Reloaded or followed from the history: the page the form is on. */
export const GET = sendToPage(({ id }) => `/investigations/${id}`);

export const POST = investigationFieldForm({
  field: 'title',
  during: 'rename',
  anchor: 'manage',
  act: async (id, title, request, page) => {
    await renameInvestigation(id, title.trim(), callerFromRequest(request));
    return `${page}?renamed=1`;
  },
});
