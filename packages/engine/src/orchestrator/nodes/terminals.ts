import type { Terminal } from '../../types.ts';
import type { NodeSpec } from '../node-context.ts';

/**
 * The four places a run stops. Each records its terminal and goes to END —
 * nothing else. In particular await_approval resumes nothing: approving a gated
 * run creates a NEW run pointing back at it (approval.ts, seed ADR-0006), so the
 * pause stays in the record instead of being erased by the decision.
 */
function terminal(id: Terminal, run: NodeSpec['run'] = () => ({ terminal: id })): NodeSpec {
  return {
    id,
    run,
    summarise: (update, state) => ({ terminal: id, verdict: update.verdict ?? state.verdict, ...(update.reasons?.length ? { reasons: update.reasons } : {}) }),
  };
}

/** The library does not answer this: no draft was ever requested. */
export const refuse = terminal('refuse', () => ({ terminal: 'refuse', verdict: 'refused' }));

/** The draft could not be verified within the attempts allowed (or the model could not be called): a person takes over. */
export const escalate = terminal('escalate', (state, { maxAttempts }) => {
  const last = state.attempts[state.attempts.length - 1];
  const why = last?.error
    ? `escalated: the model call failed (${last.error.code}) and cannot be retried in this run`
    : `escalated: the draft failed citation verification ${state.attempts.length} time${state.attempts.length === 1 ? '' : 's'} (limit ${maxAttempts})`;
  return { terminal: 'escalate', reasons: [why] };
});

/** The proposed action is too risky to emit without a person: the run ends here, gated. */
export const awaitApproval = terminal('await_approval', (state) => ({
  terminal: 'await_approval',
  reasons: [`awaiting approval: risk ${state.risk?.score} is above ${state.risk?.threshold}; approving creates a new run that points back at this one`],
}));

/** Verified, and risk at or below the line: the answer and its advisory action go out. */
export const emit = terminal('emit');
