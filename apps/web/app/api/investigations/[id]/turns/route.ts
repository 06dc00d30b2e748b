import { sendToPage } from '@/lib/form-door';
import { askInvestigation, callerFromRequest } from '@/lib/agent';
import { investigationFieldForm } from '@/lib/investigation-field-form';

/*
 * POST /api/investigations/:id/turns — the message form's target. The turn is
 * run to its end here (the agent's JSON answer) and the browser sent back to the
 * workspace at the new answer: the page renders the stored conversation, so what
 * a person sees after asking is exactly what a reload shows (seed #22). An empty
 * message costs no agent call (the agent refuses it as well).
 */

export const dynamic = 'force-dynamic';

/** Reloaded or followed from the history: the page the form is on. */
export const GET = sendToPage(({ id }) => `/investigations/${id}`);

export const POST = investigationFieldForm({
  field: 'message',
  during: 'turn',
  anchor: 'ask',
  keep: true,
  act: async (id, message, request, page) => {
    const turn = await askInvestigation(id, message.trim(), callerFromRequest(request));
    return `${page}#message-${turn.messageId}`;
  },
});
