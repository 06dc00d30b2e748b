import type { NodeSpec } from '../node-context.ts';

/**
 * propose_action: the workload turns the verified claims into a proposed
 * action — text, and only text. No tool acts on any real system (T-11); the
 * worst a successful prompt injection can do is a wrong sentence.
 */
export const proposeAction: NodeSpec = {
  id: 'propose_action',
  run(state, { workloads }) {
    const verdict = state.verdict ?? 'answered';
    return { action: workloads[state.workload].proposeAction({ question: state.question, claims: state.claims, verdict }) };
  },
  summarise: (update) => ({ kind: update.action?.kind, action: update.action?.text }),
};
