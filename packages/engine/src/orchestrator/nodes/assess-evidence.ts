import { decide } from '../../knowledge-base.ts';
import { assessEvidence } from '../../retrieval/evidence-gate.ts';
import type { NodeSpec } from '../node-context.ts';

const round = (n: number | null) => (n === null ? null : Math.round(n * 1000) / 1000);

/**
 * assess_evidence: the evidence gate (seed §Two) on the question's features.
 * Three bands, three edges: insufficient → refuse, ambiguous → adjudicate,
 * sufficient → hypothesise. Ambiguous is never read as a soft yes.
 */
export const assessEvidenceNode: NodeSpec = {
  id: 'assess_evidence',
  run(state, { kb }) {
    if (!state.retrieval) throw new Error('assess_evidence: no retrieval in state');
    const features = kb.features(state.question, state.retrieval);
    const assessment = assessEvidence(features, kb.thresholds);
    const base = { features, assessment, reasons: [...assessment.reasons] };
    if (assessment.band === 'insufficient') return { ...base, verdict: 'refused', evidence: [] };
    if (assessment.band === 'ambiguous') return { ...base, evidence: [] };
    // Sufficient: the strongest passage first, then up to two more that name every entity (the engine's one
    // rule for it), then the workload's context passages.
    const exam = decide(state.question, state.retrieval, features, kb.thresholds);
    return { ...base, verdict: 'answered', evidence: [...exam.evidence, ...(state.context ?? [])] };
  },
  summarise: (update) => ({
    band: update.assessment?.band,
    score: round(update.assessment?.score ?? null),
    coverage: round(update.assessment?.coverage ?? null),
    reasons: update.reasons,
    evidence: (update.evidence ?? []).map((c) => c.id),
  }),
};
