import { type Band, decide, type GateFeatures, type GateThresholds, type KnowledgeBase, type Retrieval, type Verdict } from '@sandscope/engine';
import type { EvalQuestion } from './question-set.ts';

/** The gate reads the top 6 (seed §Four); ranks for MRR are read deeper so a miss is a miss, not a truncation. */
export const GATE_DEPTH = 6;
export const RANK_DEPTH = 50;

/**
 * The few numbers a verdict depends on, extracted once per question. Calibration
 * sweeps thresholds over these instead of re-running retrieval; a test proves
 * `verdictOf` agrees with the engine's own `decide` on every question.
 */
export interface DecisionFeatures {
  readonly noEvidence: boolean;
  readonly coverage: number;
  readonly degraded: boolean;
  /** dense × BM25 of the strongest passage; null when degraded. */
  readonly score: number | null;
  /** The strongest passage fails the entity or value check, so a sufficient score is moved down to ambiguous. */
  readonly downgrade: boolean;
  /** The strongest passage's predicate concentration and rarest named entity (it must carry the predicate). */
  readonly bestConcentration: number;
  readonly bestRarestEntity: number;
  /** Highest concentration of a passage that names every entity, states any demanded value and is no disclaimer; -1 if none. */
  readonly carrierConcentration: number;
  /** Among those passages, the fewest corpus passages naming an entity they name (Infinity if none). */
  readonly carrierRarestEntity: number;
}

/** Raw signals the baselines threshold on, all from the same retrieval. */
export interface BaselineSignals {
  readonly denseMax: number;
  readonly bm25Max: number;
  readonly fusedTop: number;
  readonly product: number;
}

export interface Measured {
  readonly question: EvalQuestion;
  readonly decision: DecisionFeatures;
  readonly signals: BaselineSignals;
  /** 1-based rank of the expected passage (or of the first passage of the expected document), null if not found. */
  readonly rank: number | null;
  readonly retrieval: Retrieval;
  readonly features: GateFeatures;
}

export function decisionFeatures(f: GateFeatures): DecisionFeatures {
  const best = f.passages[f.bestIndex];
  let carrier = -1;
  let rarest = Infinity;
  for (const p of f.passages) {
    if (p.missingEntities.length > 0 || !p.statesDemandedValue || p.disclaims) continue;
    carrier = Math.max(carrier, p.concentration);
    if (f.demanded === null) rarest = Math.min(rarest, p.rarestEntityPassages);
  }
  return {
    noEvidence: f.passages.length === 0 || f.terms.length === 0,
    coverage: f.coverage,
    degraded: f.degraded || f.score === null,
    score: f.score,
    downgrade: Boolean(best && (best.missingEntities.length > 0 || !best.statesDemandedValue || best.disclaims)),
    bestConcentration: best?.concentration ?? 0,
    // A value question is never carried by rarity alone (carriesPredicate).
    bestRarestEntity: best && f.demanded === null ? best.rarestEntityPassages : Infinity,
    carrierConcentration: carrier,
    carrierRarestEntity: rarest,
  };
}

/** The engine's decision, as arithmetic on DecisionFeatures (mirrors `decide` exactly). */
export function verdictOf(d: DecisionFeatures, t: GateThresholds): { band: Band; verdict: Verdict } {
  if (d.noEvidence || d.coverage < t.minTermCoverage) return { band: 'insufficient', verdict: 'refused' };
  let band: Band;
  if (d.degraded || d.score === null) band = 'ambiguous';
  else if (d.score < t.insufficientBelow) return { band: 'insufficient', verdict: 'refused' };
  else if (d.score >= t.sufficientAbove && !d.downgrade && (d.bestConcentration >= t.minConcentration || d.bestRarestEntity <= t.identifyingEntityMaxPassages)) return { band: 'sufficient', verdict: 'answered' };
  else band = 'ambiguous';
  const carried = d.carrierConcentration >= t.minConcentration || d.carrierRarestEntity <= t.identifyingEntityMaxPassages;
  return { band, verdict: carried ? 'partial' : 'refused' };
}

function rankOf(q: EvalQuestion, r: Retrieval): number | null {
  if (q.label !== 'answerable') return null;
  const i = q.evidence ? r.results.findIndex((x) => x.chunk.id === q.evidence) : q.doc ? r.results.findIndex((x) => x.chunk.doc === q.doc) : -1;
  return i >= 0 ? i + 1 : null;
}

/** Retrieve and measure every question once. */
export async function measureAll(kb: KnowledgeBase, questions: readonly EvalQuestion[], onProgress?: (done: number) => void): Promise<Measured[]> {
  const out: Measured[] = [];
  for (const question of questions) {
    const deep = await kb.retrieve(question.question, RANK_DEPTH);
    const retrieval: Retrieval = { ...deep, results: deep.results.slice(0, GATE_DEPTH) };
    const features = kb.features(question.question, retrieval);
    const results = retrieval.results;
    out.push({
      question,
      decision: decisionFeatures(features),
      signals: {
        denseMax: Math.max(0, ...results.map((r) => r.dense ?? 0)),
        bm25Max: Math.max(0, ...results.map((r) => r.bm25)),
        fusedTop: results[0]?.fused ?? 0,
        product: features.score ?? 0,
      },
      rank: rankOf(question, deep),
      retrieval,
      features,
    });
    onProgress?.(out.length);
  }
  return out;
}

/** For the agreement test: the engine's own decision on a measured question. */
export function engineVerdict(m: Measured, t: GateThresholds): { band: Band; verdict: Verdict } {
  const exam = decide(m.question.question, m.retrieval, m.features, t);
  return { band: exam.assessment.band, verdict: exam.verdict };
}
