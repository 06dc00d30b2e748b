import type { ScoredChunk } from '../types.ts';
import { indexText, type Retrieval } from './hybrid-retriever.ts';
import { type DemandedValue, demandedValue, type EntityLexicon, passageNames, statesValue } from './question-shape.ts';
import { contentTerms, tokenize } from './tokenizer.ts';

/** Corpus-derived knowledge the gate reads (no tuned constants here — those are GateThresholds). */
export interface GateKnowledge {
  readonly lexicon: EntityLexicon;
  /** Inverse document frequency of an index term in this corpus (rare terms weigh more). */
  readonly idf: (term: string) => number;
}

/** What adjudication reads about one retrieved passage. */
export interface PassageEvidence {
  readonly result: ScoredChunk;
  /** Unnormalised cosine × unnormalised BM25 (0 when degraded). */
  readonly product: number;
  /** Entities of the question this passage never names. */
  readonly missingEntities: readonly string[];
  /** Whether it states a value of the kind the question demands (true when none is demanded). */
  readonly statesDemandedValue: boolean;
  /** IDF-weighted share of the question's terms this passage carries on its own. */
  readonly concentration: number;
}

/**
 * Everything the gate and the adjudicator decide from, computed once per
 * question. Separating measurement from decision lets calibration sweep every
 * tuned constant over the same features, so nothing tuned hides in code.
 */
export interface GateFeatures {
  readonly terms: readonly string[];
  readonly missingTerms: readonly string[];
  readonly coverage: number;
  readonly entities: readonly string[];
  readonly demanded: DemandedValue;
  readonly degraded: boolean;
  readonly degradedReason?: string;
  /**
   * max over passages of dense × BM25, or null when degraded — a missing dense
   * term would make the product zero and read as weak evidence when it means
   * unresolved (seed §Four).
   */
  readonly score: number | null;
  /** Index into `passages` of the strongest combined evidence. */
  readonly bestIndex: number;
  readonly passages: readonly PassageEvidence[];
}

export function concentration(terms: readonly string[], passage: ReadonlySet<string>, idf: (t: string) => number): number {
  let total = 0;
  let covered = 0;
  for (const t of terms) {
    const w = Math.max(idf(t), 0.1);
    total += w;
    if (passage.has(t)) covered += w;
  }
  return total ? covered / total : 0;
}

export function gateFeatures(question: string, retrieval: Retrieval, knowledge: GateKnowledge): GateFeatures {
  const terms = contentTerms(question);
  const entities = knowledge.lexicon.entitiesIn(question);
  const demanded = demandedValue(question);
  const termSets = retrieval.results.map((r) => new Set(tokenize(indexText(r.chunk))));
  const missingTerms = terms.filter((t) => !termSets.some((s) => s.has(t)));
  const passages = retrieval.results.map((result, i) => ({
    result,
    product: Math.max(0, result.dense ?? 0) * result.bm25,
    missingEntities: entities.filter((e) => !passageNames(result.chunk, e)),
    statesDemandedValue: demanded ? statesValue(result.chunk.text, demanded) : true,
    concentration: concentration(terms, termSets[i]!, knowledge.idf),
  }));
  let bestIndex = 0;
  passages.forEach((p, i) => {
    if (p.product > passages[bestIndex]!.product) bestIndex = i;
  });
  return {
    terms,
    missingTerms,
    coverage: terms.length ? (terms.length - missingTerms.length) / terms.length : 0,
    entities,
    demanded,
    degraded: retrieval.degraded,
    ...(retrieval.degradedReason ? { degradedReason: retrieval.degradedReason } : {}),
    score: retrieval.degraded || passages.length === 0 ? null : passages[bestIndex]!.product,
    bestIndex,
    passages,
  };
}
