import { round3 } from '../../round.ts';
import { readerStep } from '../../answerability/model-judgement.ts';
import { hazardReason } from '../../corpus/passage-hazards.ts';
import type { NodeSpec } from '../node-context.ts';

const round = (n: number | null) => (n === null ? null : round3(n));

/**
 * assess_evidence: the answerability decision (issue 9 C — the same function the
 * evaluation calls) on the question's features. Three bands, three edges:
 * insufficient → refuse, ambiguous → adjudicate, sufficient → hypothesise
 * (with a reader, through adjudicate first: S-096, the graph's routing; and
 * with a reader the insufficient band is read before it is refused, S-100).
 * Ambiguous is never read as a soft yes.
 */
export const assessEvidenceNode: NodeSpec = {
  id: 'assess_evidence',
  run(state, { kb, adjudication }) {
    if (!state.retrieval) throw new Error('assess_evidence: no retrieval in state');
    const features = kb.features(state.question, state.retrieval);
    const decision = kb.decide(features, kb.model, adjudication);
    const { assessment } = decision;
    // Issue 12, defect 9: say so when a passage it may answer from holds text that is never quoted.
    const marked = features.passages.map((p) => p.result.chunk).filter((c) => kb.hazards.has(c.id));
    const base = { features, assessment, decision, reasons: [...assessment.reasons, ...marked.map((c) => hazardReason(c, kb.hazards.get(c.id)!))] };
    // The ambiguous band goes to adjudication; with a reader, so does a refusal of the insufficient band (S-100).
    if (readerStep(decision) === 'judge' && (adjudication === 'model' || assessment.band === 'ambiguous')) return { ...base, evidence: [] };
    // Below the lower line offline, nothing retrieved, or a conflict between passages (from any band): refused here.
    if (assessment.band !== 'sufficient' || decision.verdict === 'refused')
      return { ...base, verdict: 'refused', refusal: decision.refusal ?? 'unsure', evidence: [] };
    // Sufficient: the answering passage first, then the workload's context passages.
    return { ...base, verdict: 'answered', evidence: [...decision.evidence, ...(state.context ?? [])] };
  },
  summarise: (update) => ({
    band: update.assessment?.band,
    score: round(update.assessment?.score ?? null),
    answerability: round(update.assessment?.answerability ?? null),
    coverage: round(update.assessment?.coverage ?? null),
    reasons: update.reasons,
    evidence: (update.evidence ?? []).map((c) => c.id),
    // The passage its reasons name as the closest, kept by id so a refusal can link to it: offline, most false
    // refusals name the passage that answers (S-106's count in docs/EVALUATION.md), and "read it yourself" was text only.
    closest: update.assessment?.best?.chunk.id ?? null,
    // …and the next most likely after it: named with it, a false refusal points at the answering passage far more
    // often than by the closest alone (S-172).
    nextClosest: (update.assessment?.nearest ?? []).slice(1).map((c) => c.chunk.id),
    // What a refusal here claims (S-108), so a stored run's page heads it as the CLI does.
    ...(update.refusal ? { refusal: update.refusal } : {}),
    // The slips left as typed and the library's words for them (S-179), so a stored run's page can offer the question
    // again with them beside a refusal, here or the reader's after it (S-180). Each quotes one word of the question, as
    // `reasons` do: stored with the run, withheld from a tracing collector (S-166).
    ...(update.features?.nearMisses.length ? { nearMisses: update.features.nearMisses } : {}),
  }),
};
