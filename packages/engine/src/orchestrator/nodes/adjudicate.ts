import type { NodeSpec } from '../node-context.ts';

/**
 * adjudicate: the explicit step for the ambiguous band. It lets an answer
 * through flagged PARTIAL — a flag that stays on the run to its result — or
 * refuses. It never upgrades to sufficient. The decision was taken once by
 * assess_evidence (one function for the engine and the evaluation); this node
 * applies its adjudication. The carrier leads the evidence; the workload's
 * context passages follow it.
 */
export const adjudicateNode: NodeSpec = {
  id: 'adjudicate',
  run(state) {
    const adjudication = state.decision?.adjudication;
    if (!adjudication) throw new Error('adjudicate: no adjudication in the decision');
    if (adjudication.decision === 'partial' && adjudication.carrier) {
      return { adjudication, verdict: 'partial', reasons: [...adjudication.reasons], evidence: [adjudication.carrier.chunk, ...(state.context ?? [])] };
    }
    return { adjudication, verdict: 'refused', reasons: [...adjudication.reasons], evidence: [] };
  },
  summarise: (update) => ({
    decision: update.adjudication?.decision,
    reasons: update.reasons,
    carrier: update.adjudication?.carrier?.chunk.id ?? null,
  }),
};
