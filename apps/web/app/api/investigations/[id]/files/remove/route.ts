import { sendToPage } from '@/lib/form-door';
import { callerFromRequest, removeInvestigationFile } from '@/lib/agent';
import { investigationFieldForm } from '@/lib/investigation-field-form';

/*
 * POST /api/investigations/:id/files/remove — a file row's "Remove" button:
 * DELETE …/files/<path> on the agent, then back to the file list (303). The
 * path comes from the form; the agent resolves it inside the workspace or
 * refuses it, so a crafted path reaches nothing outside.
 */

export const dynamic = 'force-dynamic';

/** Reloaded or followed from the history: the page the form is on. */
export const GET = sendToPage(({ id }) => `/investigations/${id}#files`);

export const POST = investigationFieldForm({
  field: 'path',
  during: 'remove',
  anchor: 'files',
  act: async (id, path, request, page) => {
    await removeInvestigationFile(id, path, callerFromRequest(request));
    return `${page}?removed=${encodeURIComponent(path)}#files`;
  },
});
