import type { NodeSpec } from '../node-context.ts';
import { RISK_THRESHOLD } from '../risk-scorer.ts';

/**
 * risk_gate: the workload's deterministic risk scorer on what the question asks
 * to do. Above RISK_THRESHOLD the run stops at await_approval for a human;
 * otherwise it emits. The score comes from the estate and the question's words,
 * never from a model; the proposed action's text (built from the cited claims)
 * is passed for the record and not scored (issue 13).
 */
export const riskGate: NodeSpec = {
  id: 'risk_gate',
  run(state, { kb, workloads }) {
    if (!state.action) throw new Error('risk_gate: no proposed action in state');
    const risk = workloads[state.workload].riskScorer({ question: state.question, actionText: state.action.text, estate: kb.estate });
    return { risk, reasons: [`risk ${risk.score} ${risk.score > RISK_THRESHOLD ? '>' : '≤'} ${RISK_THRESHOLD}${risk.service ? ` (${risk.service})` : ''}`] };
  },
  summarise: (update) => ({
    score: update.risk?.score,
    factors: update.risk?.factors,
    threshold: update.risk?.threshold,
    service: update.risk?.service ?? null,
    gated: update.risk ? update.risk.score > update.risk.threshold : null,
  }),
};
