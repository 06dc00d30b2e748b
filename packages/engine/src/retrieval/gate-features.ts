import { sentenceBlocksOf, sentencesOf } from '../answer/sentences.ts';
import type { ScoredChunk } from '../types.ts';
import { indexText, type Retrieval } from './hybrid-retriever.ts';
import { type DemandedValue, demandedValue, disclaims, type EntityLexicon, passageNames, statesValue, textNames } from './question-shape.ts';
import { contentTerms, tokenize } from './tokenizer.ts';

/** Corpus-derived knowledge the gate reads (no tuned constants here — those are GateThresholds). */
export interface GateKnowledge {
  readonly lexicon: EntityLexicon;
  /** Inverse document frequency of an index term in this corpus (rare terms weigh more). */
  readonly idf: (term: string) => number;
  /** Whether the corpus uses this index term at all. */
  readonly knows: (term: string) => boolean;
}

/** What the gate and adjudication read about one retrieved passage. */
export interface PassageEvidence {
  readonly result: ScoredChunk;
  /** Unnormalised cosine × unnormalised BM25 (0 when degraded). */
  readonly product: number;
  /** Entities of the question this passage never names. */
  readonly missingEntities: readonly string[];
  /** Whether it states a value of the kind the question demands (true when none is demanded). */
  readonly statesDemandedValue: boolean;
  /**
   * IDF-weighted share of the question's PREDICATE (its content terms other than
   * the entities it is about) that this passage carries on its own, counted over
   * the predicate terms the corpus knows. The subject is the entity check's job
   * and terms the corpus never uses are coverage's: counting either here
   * would let a passage that merely names a rare service look like an answer.
   * For a question demanding a value, it is read from the best SENTENCE that
   * states such a value (with the passage heading as its context): the value
   * must stand with what was asked, not merely somewhere in the passage — a
   * lag threshold is not an answer to a question about a disk threshold.
   */
  readonly concentration: number;
  /** The passage's heading, or a sentence of it that mentions what was asked, disclaims it ("not covered", "out of scope"). */
  readonly disclaims: boolean;
  /**
   * Fewest corpus passages naming any question entity this passage names, counting
   * only entities that can identify a topic — an alert, an error string — and never
   * a service of the estate, which is a subject (Infinity when it names none).
   */
  readonly rarestEntityPassages: number;
}

/**
 * Does this passage carry the question on its own (entity, value and disclaimer checks aside)?
 * A rare entity identifies the topic only for a question that demands no value: for one that
 * does, the value must stand with what was asked, always — however rare the entity.
 */
export function carriesPredicate(
  p: PassageEvidence,
  t: { minConcentration: number; identifyingEntityMaxPassages: number },
  demandsValue: boolean,
): boolean {
  return p.concentration >= t.minConcentration || (!demandsValue && p.rarestEntityPassages <= t.identifyingEntityMaxPassages);
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
  /** The question's content terms that are not part of an entity's name. */
  readonly predicate: readonly string[];
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

/** IDF-weighted share of `terms` present in `passage`; 1 when there is nothing to carry. */
export function concentration(terms: readonly string[], passage: ReadonlySet<string>, idf: (t: string) => number): number {
  let total = 0;
  let covered = 0;
  for (const t of terms) {
    const w = Math.max(idf(t), 0.1);
    total += w;
    if (passage.has(t)) covered += w;
  }
  return total ? covered / total : 1;
}

/** Content terms that belong to an entity's name (`orders-db`, `orders`, `db`), which the entity check already covers. */
function entityTerms(entities: readonly string[]): Set<string> {
  return new Set(entities.flatMap((e) => [...contentTerms(e), ...tokenize(e)]));
}

/**
 * The best predicate concentration among the passage's sentences that state a
 * value of the demanded kind AND stand with every entity asked about: the entity
 * is named in the sentence, in the heading or document title, or is what the
 * sentence's pronouns refer to: the first thing named by the nearest earlier
 * sentence of its list item or paragraph that names anything. A passage listing
 * several services states each one's numbers in its own item; "It runs 12
 * replicas" in `playback-api`'s item is no answer about `catalog-api`, which that
 * item merely mentions (S-021).
 */
function valueSentenceConcentration(
  result: ScoredChunk,
  demanded: Exclude<DemandedValue, null>,
  predicate: readonly string[],
  entities: readonly string[],
  knowledge: GateKnowledge,
): number {
  const { heading, docTitle, text } = result.chunk;
  const unplaced = entities.filter((e) => !textNames(`${docTitle}\n${heading}`, e));
  let best = 0;
  for (const block of sentenceBlocksOf(text)) {
    // A sub-heading merged into the passage places an entity for the blocks under it, as the heading does.
    const here = block.subheading ? unplaced.filter((e) => !textNames(block.subheading!, e)) : unplaced;
    let subject: string | null = null;
    for (const sentence of block.sentences) {
      const named = here.length ? knowledge.lexicon.firstNamedIn(sentence.toLowerCase()) : null;
      if (statesValue(sentence, demanded) && here.every((e) => e === subject || textNames(sentence, e))) {
        const c = concentration(predicate, new Set(tokenize(`${heading}\n${sentence}`)), knowledge.idf);
        if (c > best) best = c;
      }
      subject = named ?? subject;
    }
  }
  return best;
}

function disclaimsPredicate(result: ScoredChunk, predicate: readonly string[]): boolean {
  if (disclaims(result.chunk.heading)) return true;
  const asked = new Set(predicate);
  return sentencesOf(result.chunk.text).some((s) => disclaims(s) && tokenize(s).some((t) => asked.has(t)));
}

export function gateFeatures(question: string, retrieval: Retrieval, knowledge: GateKnowledge): GateFeatures {
  const terms = contentTerms(question);
  const entities = knowledge.lexicon.entitiesIn(question);
  const demanded = demandedValue(question);
  const termSets = retrieval.results.map((r) => new Set(tokenize(indexText(r.chunk))));
  const missingTerms = terms.filter((t) => !termSets.some((s) => s.has(t)));
  const ofEntities = entityTerms(entities);
  const predicate = terms.filter((t) => !ofEntities.has(t));
  const carriedSomewhere = predicate.filter((t) => knowledge.knows(t));
  const passages = retrieval.results.map((result, i) => ({
    result,
    product: Math.max(0, result.dense ?? 0) * result.bm25,
    missingEntities: entities.filter((e) => !passageNames(result.chunk, e)),
    statesDemandedValue: demanded ? statesValue(result.chunk.text, demanded) : true,
    concentration: demanded
      ? valueSentenceConcentration(result, demanded, carriedSomewhere, entities, knowledge)
      : concentration(carriedSomewhere, termSets[i]!, knowledge.idf),
    disclaims: disclaimsPredicate(result, predicate),
    rarestEntityPassages: Math.min(Infinity, ...entities.filter((e) => knowledge.lexicon.identifiesTopic(e) && passageNames(result.chunk, e)).map((e) => knowledge.lexicon.passagesNaming(e))),
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
    predicate,
    demanded,
    degraded: retrieval.degraded,
    ...(retrieval.degradedReason ? { degradedReason: retrieval.degradedReason } : {}),
    score: retrieval.degraded || passages.length === 0 ? null : passages[bestIndex]!.product,
    bestIndex,
    passages,
  };
}
