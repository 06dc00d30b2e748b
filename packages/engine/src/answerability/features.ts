import type { NearMiss, Respelled, Respelling } from '../retrieval/respelling.ts';
import { sentenceBlocksOf } from '../answer/sentences.ts';
import { indexText, type Retrieval } from '../retrieval/hybrid-retriever.ts';
import type { ClassNamer } from '../corpus/estate-classes.ts';
import { type DemandedValue, disclaims, type EntityLexicon, passageNames, statesValue, textNames } from '../retrieval/question-shape.ts';
import { plainWords, unitCosine } from '../retrieval/word-vectors.ts';
import { CAMEL_CASE_NAME, camelParts, contentTerms, isStopword, stem, tokenize, unreadableWords, words } from '../retrieval/tokenizer.ts';
import type { Chunk, ScoredChunk } from '../types.ts';
import { type QuestionIntent, questionIntent } from './question-intent.ts';
import { questionNouns } from './question-nouns.ts';
import { roleFor, type SectionRole, sectionsOfPassage } from './section-role.ts';

/** What the corpus knows, read by the features (measured from the corpus, never tuned). */
export interface CorpusKnowledge {
  readonly lexicon: EntityLexicon;
  /** Inverse document frequency of an index term (a term no passage uses gets the highest). */
  readonly idf: (term: string) => number;
  /** Whether any passage uses this index term. */
  readonly knows: (term: string) => boolean;
  /** Index terms of a whole document, and its sections with their roles. */
  readonly documentOf: (doc: string) => DocumentKnowledge | undefined;
  /**
   * Is this term part of what the corpus NAMES things — a word of some document's
   * file name, title or headings? The corpus's own aliases: "publisher" names the
   * content-publisher runbook, so a question about the publisher answered from the
   * router's runbook is about the wrong thing (issue 9, class 3).
   */
  readonly isName: (term: string) => boolean;
  /** Stems sharing a sense with this one (a thesaurus; none when the edge gave none). */
  readonly related: (term: string) => readonly string[];
  /** A plain word's unit vector (GloVe; none when the edge gave none). */
  readonly vectorOf: (word: string) => Float32Array | undefined;
  /** Whether a text names a class the entity belongs to (its estate tier); absent without an estate (S-134). */
  readonly namesClassOf?: ClassNamer;
  /**
   * The question as the library reads it: a slip of the keys read as the one library term it is an edit from
   * (S-173). Retrieval reads the same text. Absent without a dictionary to tell a slip from a word the library lacks.
   */
  readonly respell?: (question: string) => Respelled;
}

/** A whole document as the features read it. */
export interface DocumentKnowledge {
  readonly terms: ReadonlySet<string>;
  readonly sections: readonly SectionRole[];
  /** Id of its first passage: the lead, which describes what the document is about. */
  readonly lead: string;
  readonly passages: readonly Chunk[];
}

/**
 * The features the answerability model reads, one vector per (question, passage)
 * pair, in this order. Each is a measurement; how they combine is learned
 * (`npm run train`), never hand-set. Names are what the model's reasons quote.
 */
export const FEATURE_NAMES = [
  'logProduct',
  'dense',
  'bm25PerTerm',
  'lexicalMatch',
  'reciprocalRank',
  'relativeProduct',
  'topicCoverage',
  'predicateCoverage',
  'headingCoverage',
  'documentCoverage',
  'unknownTopicShare',
  'synonymCoverage',
  'synonymDocumentCoverage',
  'unknownAfterSynonyms',
  'nounCoverage',
  'nounDocumentCoverage',
  'unknownNounShare',
  'missingNameFromDocument',
  'missingNameFromPassage',
  'missingEntity',
  'missingEntityFromDocument',
  'identifyingEntity',
  'roleMatch',
  'rolePlaceholder',
  'roleElsewhereInDocument',
  'roleAbsentFromDocument',
  'otherRole',
  'placeholder',
  'ownBodyWords',
  'ownLinkShare',
  'postmortemRecord',
  'postmortemDocument',
  'procedureFromPostmortem',
  'runbookDocument',
  'valueMissing',
  'valueCoverage',
  'disclaims',
  'propositionMissingFromDocument',
  'propositionMissingFromPassage',
  'softCoverage',
] as const;
export type FeatureName = (typeof FEATURE_NAMES)[number];

/**
 * What the second stage reads about the question as a whole, given the first
 * stage's rating of each passage (`questionVector`).
 */
// No feature says what KIND of question it is on its own: a prior by question type would learn how the
// development sets were written (their value questions are often unanswerable by design), not whether the
// library answers. The intent acts only through the evidence: role match, value, proposition.
export const QUESTION_FEATURE_NAMES = [
  'bestScore',
  'secondScore',
  'bestShare',
  'likelyPassages',
  'documentsInTop3',
  'retrievedCoverage',
  'unknownTopicShare',
  'unknownNounShare',
  'bestPasses',
  'bestMissingEntity',
  'bestValueMissing',
  'bestRolePlaceholder',
  'bestPropositionMissing',
  'bestTopicCoverage',
  'bestSynonymCoverage',
  'bestNounCoverage',
  'bestDocumentCoverage',
  'bestMissingName',
  'bestRoleMatch',
  'bestHeadingCoverage',
  'bestPredicateCoverage',
  'bestValueCoverage',
  'bestDense',
  'bestLexicalMatch',
  'bestSoftCoverage',
] as const;

/** What the decision and its reasons read about one retrieved passage. */
export interface PassageFeatures {
  readonly result: ScoredChunk;
  /** Unnormalised cosine × unnormalised BM25 (seed §Two), 0 when degraded. */
  readonly product: number;
  /** Entities of the question this passage never names. */
  readonly missingEntities: readonly string[];
  /** Entities of the question its whole document never names. */
  readonly missingFromDocument: readonly string[];
  /** The question demands a value and none stands in this passage with what was asked. */
  readonly valueMissing: boolean;
  /** The sentence that states the demanded value with what was asked (the one carrying most of the predicate), if any. */
  readonly valueSentence: string | null;
  readonly disclaims: boolean;
  /** The passage's own section says nothing (empty, "TODO", only a link). */
  readonly placeholder: boolean;
  /** The section answering the question's intent is here, or here only as a placeholder. */
  readonly roleMatch: boolean;
  /**
   * The role is here in a section of the document's own (S-054), not only in the title: "# Runbook: Connection
   * Pool Exhaustion" reads as a procedure heading, but the steps to quote are under a section that names the role.
   */
  readonly roleBelowTitle: boolean;
  /** It is its document's lead (first passage), which says what the whole document is about. */
  readonly documentLead: boolean;
  readonly rolePlaceholder: boolean;
  /**
   * The section asked for is a placeholder: its own section, when its heading shares the question's words or role, or
   * every section of the role asked whose heading carries the question's words (S-153).
   */
  readonly placeholderAsked: boolean;
  /** The heading of the empty section asked for, when `placeholderAsked`: what a reason names. */
  readonly askedHeading: string;
  /** A postmortem's record (timeline, action items) offered for a "what do I do" or "how do I check" question. */
  readonly postmortemRecord: boolean;
  /** A yes/no question's remedy or cause is never mentioned in this passage's document. */
  readonly propositionMissing: boolean;
  /** The words of that remedy or cause, as the question wrote them, that its document never uses, and that the passage never uses: what a reason names. */
  readonly propositionUnsaid: { readonly document: readonly string[]; readonly passage: readonly string[] };
  /** The model's input, in FEATURE_NAMES order. */
  readonly vector: readonly number[];
}

export interface AnswerabilityFeatures {
  readonly terms: readonly string[];
  /** The question's words read as library terms they are one edit from (S-173): what a reason tells the asker. */
  readonly respellings: readonly Respelling[];
  /**
   * The question's words the library never uses that are one edit from words it does, not read as them (S-179): what
   * a refusal offers to type again. No rating reads them.
   */
  readonly nearMisses: readonly NearMiss[];
  /** The question's content terms other than the words that say what kind of question it is. */
  readonly topicTerms: readonly string[];
  /** Topic terms no retrieved passage contains. */
  readonly missingTerms: readonly string[];
  /** The question's words, as it wrote them, that no retrieved passage contains: what a reason quotes. */
  readonly missingWords: readonly string[];
  /** The question's words, as it wrote them, that no passage of the library contains. */
  readonly unknownWords: readonly string[];
  /**
   * The question's nouns, as it wrote them, that no passage contains: "number" in "whats the on-call phone number" is
   * no topic term (the question-only stopwords drop it), but a noun the library never uses all the same (S-165).
   */
  readonly unknownNounWords: readonly string[];
  /** The question's words the tokenizer cannot read (another script, an accented letter): none may be, for a verdict (S-109). */
  readonly unreadWords: readonly string[];
  /**
   * The question's words the index reads, as written. Where none of them is a term (each only says what kind of question
   * it is: "call", "fix", "now"), they are what the refusal quotes (S-161).
   */
  readonly indexWords: readonly string[];
  /** Share of topic terms present in some retrieved passage. */
  readonly coverage: number;
  readonly entities: readonly string[];
  readonly intent: QuestionIntent;
  readonly demanded: DemandedValue;
  readonly degraded: boolean;
  readonly degradedReason?: string;
  /**
   * max over passages of dense × BM25, or null when degraded — a missing dense
   * term would make the product zero and read as weak evidence when it means
   * unresolved (seed §Four). Reported; the model reads it as one feature.
   */
  readonly score: number | null;
  /** Index of the strongest product. */
  readonly bestIndex: number;
  readonly passages: readonly PassageFeatures[];
  /**
   * Sections of the retrieved passages' documents that were not retrieved themselves and name the role asked for
   * in their own heading (S-059), in document order: what an answer may quote, never what is rated.
   */
  readonly unretrievedSections: readonly PassageFeatures[];
}

/**
 * Words that say what KIND of question it is, not what it is about. They are
 * weighed by the intent/role features; counted as topic they would make every
 * "how do I mitigate X" look uncovered by X's Mitigation section.
 */
const INTENT_WORDS = new Set(
  `mitigate mitigation mitigating fix fixing fixed resolve resolving resolution remediate remediation handle handling respond response
  steps step procedure process runbook playbook do doing diagnose diagnosis investigate investigation investigating check checking troubleshoot
  troubleshooting debug debugging impact impacts affect affected affects cause causes caused causing reason reasons root mean means meaning
  explain explanation help helps work works happen happens happening going wrong firing fired fires paging paged page alert alerts alerting
  look find figure tell confirm verify see first next now quick quickly exactly actually really ok okay hey guys someone anyone`
    .split(/\s+/)
    .filter(Boolean)
    .map(stem),
);

/** What kind of document a passage is in, from its file name and title: how a library says what a document is. */
const POSTMORTEM_DOC = /post[- ]?mortem|incident[- ]report|retrospective|post[- ]incident|\bincident[-_ ]\d{4}|\bpir\b/i;
const RUNBOOK_DOC = /runbook|playbook|alert|troubleshoot|how[- ]to/i;
const CAMEL_ALERT = /^[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+$/;

/**
 * What a passage's text parses to never changes: parsed once per passage, not once per question (a
 * passage object lives as long as its knowledge base, so a WeakMap holds nothing beyond it).
 */
const parsed = new WeakMap<
  Chunk,
  { terms: Set<string>; words: string[]; blocks: ReturnType<typeof sentenceBlocksOf>; disclaimers: string[][]; sections?: SectionRole[] }
>();
function parsedOf(chunk: Chunk) {
  let p = parsed.get(chunk);
  if (!p) {
    const blocks = sentenceBlocksOf(chunk.text);
    const disclaimers = blocks
      .flatMap((b) => b.sentences)
      .filter((s) => disclaims(s))
      .map((s) => tokenize(s));
    const text = indexText(chunk);
    parsed.set(chunk, (p = { terms: new Set(tokenize(text)), words: [...new Set(plainWords(text))], blocks, disclaimers }));
  }
  return p;
}

/** How much a term weighs in a share: its IDF, with a floor so a word every passage uses still counts a little. */
const termWeight = (t: string, idf: (t: string) => number) => Math.max(idf(t), 0.1);

/** IDF-weighted share of `terms` present in `present`; 1 when there is nothing to carry. */
export function weightedShare(terms: readonly string[], present: ReadonlySet<string>, idf: (t: string) => number): number {
  let total = 0;
  let covered = 0;
  for (const t of terms) {
    const w = termWeight(t, idf);
    total += w;
    if (present.has(t)) covered += w;
  }
  return total ? covered / total : 1;
}

const PRONOUN_OPENING = /^\W*(?:it|its|it's|this|that|they|their|these|those|he|she)\b/i;

/**
 * The best share of the predicate carried by a sentence that states a value of
 * the demanded kind AND stands with every entity asked about: named in the
 * sentence, in the heading, path or title, or what the sentence's pronouns refer
 * to within its list item or paragraph (S-021: "It runs 12 replicas" in
 * playback-api's bullet is no answer about catalog-api).
 */
function valueCoverage(
  result: ScoredChunk,
  demanded: Exclude<DemandedValue, null>,
  predicate: readonly string[],
  entities: readonly string[],
  k: CorpusKnowledge,
): { coverage: number; sentence: string | null } {
  const { heading, docTitle, path } = result.chunk;
  const context = `${docTitle}\n${(path ?? []).join('\n')}\n${heading}`;
  // A rule stated for the entity's class ("for tier 1 services") states it for the entity (S-134).
  const namedIn = (text: string, e: string) => textNames(text, e) || (k.namesClassOf?.(text, e) ?? false);
  const unplaced = entities.filter((e) => !namedIn(context, e));
  let best = 0;
  let bestSentence: string | null = null;
  for (const block of parsedOf(result.chunk).blocks) {
    const here = block.subheading ? unplaced.filter((e) => !namedIn(block.subheading!, e)) : unplaced;
    let subject: string | null = null;
    for (const sentence of block.sentences) {
      const first = here.length ? k.lexicon.firstNamed(sentence.toLowerCase()) : null;
      const named = first?.entity ?? null;
      // A sentence that opens on something it names is about that thing; only one that opens on a pronoun
      // ("It runs 12 replicas") is about the subject before it. "Each `catalog-api` instance has a 1.5 GiB limit",
      // after a sentence about recommendation-api, is no value of recommendation-api's (S-036).
      const about = named && !PRONOUN_OPENING.test(sentence) ? named : subject;
      // A sentence that opens on another thing states that thing's values, whatever else it names on the way:
      // "`catalog-pg` is the cluster behind catalog-api, with one primary and one replica" gives no replica
      // count of catalog-api's (S-039). A sentence opening on one thing asked about may relate it to another.
      const aboutOther = first?.opens === true && !entities.includes(first.entity);
      if (statesValue(sentence, demanded) && !aboutOther && here.every((e) => e === about || namedIn(sentence, e))) {
        const c = predicate.length === 0 ? 1 : weightedShare(predicate, new Set(tokenize(`${heading}\n${sentence}`)), k.idf);
        if (c > best || bestSentence === null) {
          best = Math.max(best, c);
          bestSentence = sentence;
        }
      }
      subject = named ?? subject;
    }
  }
  return { coverage: best, sentence: bestSentence };
}

/**
 * A passage's word vectors, gathered once per passage and source of vectors: an ask compares a few question
 * words against hundreds of passage words, and looking each up again per question was most of its time.
 */
const passageVectors = new WeakMap<Chunk, { readonly of: CorpusKnowledge['vectorOf']; readonly vectors: readonly Float32Array[] }>();
function vectorsOf(chunk: Chunk, k: CorpusKnowledge): readonly Float32Array[] {
  const cached = passageVectors.get(chunk);
  if (cached?.of === k.vectorOf) return cached.vectors;
  const vectors = parsedOf(chunk).words.flatMap((u) => k.vectorOf(u) ?? []);
  passageVectors.set(chunk, { of: k.vectorOf, vectors });
  return vectors;
}

/**
 * IDF-weighted share of the question's words said in this passage, where a word it does not use counts by
 * the closest word it does (the cosine of their vectors, none below 0): a "spike" is half-said by a passage
 * about a "surge", "slow" by one about a "delay" — related words WordNet's synsets do not join (issue 9,
 * class 5: ordinary wording refused; S-044). A word without a vector counts only when said.
 */
function softCoverage(words: readonly string[], chunk: Chunk, here: ReadonlySet<string>, k: CorpusKnowledge): number {
  let total = 0;
  let covered = 0;
  let vectors: readonly Float32Array[] | null = null;
  for (const w of words) {
    const term = stem(w);
    const weight = termWeight(term, k.idf);
    total += weight;
    if (here.has(term)) {
      covered += weight;
      continue;
    }
    const v = k.vectorOf(w);
    if (!v) continue;
    vectors ??= vectorsOf(chunk, k);
    let closest = 0;
    for (const u of vectors) closest = Math.max(closest, unitCosine(v, u));
    covered += weight * closest;
  }
  return total ? covered / total : 1;
}

function disclaimsAsked(result: ScoredChunk, asked: ReadonlySet<string>): boolean {
  if (disclaims(result.chunk.heading)) return true;
  return parsedOf(result.chunk).disclaimers.some((terms) => terms.some((t) => asked.has(t)));
}

/**
 * The question's terms, with a name the corpus never uses split into its words:
 * an engineer pastes `RouterErrorRatioTooHigh` where the runbook writes "router
 * error ratio too high", or says `payments-db` where it writes "payments database".
 */
function questionTerms(question: string, knows: (t: string) => boolean): string[] {
  const camel = new Map<string, string[]>();
  for (const m of question.matchAll(CAMEL_CASE_NAME)) camel.set(m[0].toLowerCase(), camelParts(m[0]));
  const out = new Set<string>();
  for (const t of contentTerms(question)) {
    const parts = knows(t) ? null : (camel.get(t) ?? (/[-_.]/.test(t) ? t.split(/[-_.]/) : null));
    if (!parts) out.add(t);
    else for (const p of parts) if (p && !isStopword(p)) out.add(stem(p));
  }
  return [...out];
}

/** Each stem of the question, and of an identifier's parts, mapped to the word the question wrote it as. */
function wordsAsWritten(question: string): Map<string, string> {
  const out = new Map<string, string>();
  const lower = question.toLowerCase();
  // `words` lower-cases; the reason quotes the question's own spelling ("Flapping", "OrdersDb") where it finds it.
  const spelled = (w: string) => {
    const at = lower.indexOf(w);
    return at >= 0 ? question.slice(at, at + w.length) : w;
  };
  const note = (w: string) => {
    const t = stem(w);
    if (!out.has(t)) out.set(t, spelled(w));
  };
  for (const w of words(question)) {
    note(w);
    for (const p of w.split(/[-_.]/)) if (p && p !== w) note(p);
  }
  for (const m of question.matchAll(CAMEL_CASE_NAME)) for (const p of camelParts(m[0])) note(p.toLowerCase());
  return out;
}

/** Measure a question against its retrieved passages: once per question, read by the decision and by training. */
export function answerabilityFeatures(asked: string, retrieval: Retrieval, k: CorpusKnowledge): AnswerabilityFeatures {
  const { text: question, respellings, nearMisses } = k.respell?.(asked) ?? { text: asked, respellings: [], nearMisses: [] };
  const terms = questionTerms(question, k.knows);
  const intent = questionIntent(question);
  const topicTerms = terms.filter((t) => !INTENT_WORDS.has(t));
  // Coverage is measured over the words the corpus uses; the words it never uses are their own feature.
  const knownTopic = topicTerms.filter((t) => k.knows(t));
  const nouns = questionNouns(question).filter((t) => !INTENT_WORDS.has(t));
  const knownNouns = nouns.filter((t) => k.knows(t));
  const unknownNounTerms = nouns.filter((t) => !k.knows(t));
  const unknownNouns = weightedShare(nouns, new Set(unknownNounTerms), k.idf);
  const names = knownTopic.filter((t) => k.isName(t));
  const entities = k.lexicon.entitiesIn(question);
  const ofEntities = new Set(entities.flatMap((e) => [...contentTerms(e), ...tokenize(e)]));
  const predicate = topicTerms.filter((t) => !ofEntities.has(t) && k.knows(t));
  const unknownWeight = weightedShare(topicTerms, new Set(topicTerms.filter((t) => !k.knows(t))), k.idf);
  // A word the passage does not use may still be said there in other words ("died" / "failed").
  const synonyms = new Map(topicTerms.map((t) => [t, k.related(t)]));
  const saidIn = (terms: ReadonlySet<string>) => new Set(topicTerms.filter((t) => terms.has(t) || synonyms.get(t)!.some((r) => terms.has(r))));
  const unsaid = topicTerms.filter((t) => !k.knows(t) && !synonyms.get(t)!.some((r) => k.knows(r)));
  const role = roleFor(intent.intent);
  const questionWords = new Set(terms);
  // Runbooks name their procedure, diagnosis and impact sections; causes and meanings live in any prose,
  // so a document without a "Causes" heading says nothing about whether it explains a cause.
  const conventional = role === 'procedure' || role === 'diagnosis' || role === 'impact';
  // A section that only points elsewhere holds no step, impact or cause of its own (S-043); for a look-up
  // ("where is the dashboard?") the pointer may be the answer.
  const empty = (s: SectionRole) => s.placeholder || ((conventional || role === 'cause') && s.referral === true);
  // BM25 as a share of what the question's words could score at most: comparable across corpora of any size.
  const queryIdf = Math.max(
    1e-9,
    [...new Set(tokenize(question))].reduce((s, t) => s + k.idf(t), 0),
  );
  const proposition = new Set(intent.proposition);
  const plainTopic = [...new Set(plainWords(question))].filter((w) => !isStopword(w) && !INTENT_WORDS.has(stem(w)));
  const maxProduct = Math.max(0, ...retrieval.results.map((r) => Math.max(0, r.dense ?? 0) * r.bm25));
  const termSets = retrieval.results.map((r) => parsedOf(r.chunk).terms);
  const missingTerms = topicTerms.filter((t) => !termSets.some((s) => s.has(t)));

  // A reason quotes the question's own words: "never mentions custom" for "customer" (a stem) reads as a wrong
  // claim, and "the library never mentions X" must mean the library, not what was retrieved (S-068).
  const written = wordsAsWritten(question);
  const asWritten = (ts: readonly string[]) => [...new Set(ts.map((t) => written.get(t) ?? t))];

  // A passage names an entity by name, or by a class it belongs to: "tier 1 services" names payments-api (S-134).
  // Read once per passage per question: a document's passages are asked about again for each of its retrieved ones.
  const classNamed = new Map<Chunk, readonly string[]>();
  const namedByClass = (c: Chunk): readonly string[] => {
    let named = classNamed.get(c);
    if (!named) {
      const text = k.namesClassOf && entities.length ? indexText(c) : '';
      named = text ? entities.filter((e) => k.namesClassOf!(text, e)) : [];
      classNamed.set(c, named);
    }
    return named;
  };
  const covers = (c: Chunk, e: string) => passageNames(c, e) || namedByClass(c).includes(e);
  // The words of the entities a text covers by class only, for the name features: they are named there in that sense.
  const withClass = (terms: ReadonlySet<string>, passages: readonly Chunk[]): ReadonlySet<string> => {
    const named = entities.filter((e) => passages.some((c) => namedByClass(c).includes(e)));
    return named.length ? new Set([...terms, ...named.flatMap((e) => [...contentTerms(e), ...tokenize(e)])]) : terms;
  };

  const measure = (result: ScoredChunk, i: number): PassageFeatures => {
    const chunk = result.chunk;
    const here = parsedOf(chunk).terms;
    const doc = k.documentOf(chunk.doc);
    const docTerms = doc?.terms ?? here;
    const cache = parsedOf(chunk);
    const sections = (cache.sections ??= sectionsOfPassage(chunk.heading, chunk.text, chunk.level, doc?.lead === chunk.id));
    const own = sections[0]!;
    const product = Math.max(0, result.dense ?? 0) * result.bm25;
    const missingEntities = entities.filter((e) => !covers(chunk, e));
    const missingFromDocument = missingEntities.filter((e) => !doc?.passages.some((c) => covers(c, e)));
    const identifying = entities.filter((e) => k.lexicon.identifiesTopic(e) && passageNames(chunk, e));
    const rarest = Math.min(Infinity, ...identifying.map((e) => k.lexicon.passagesNaming(e)));
    const withRole = role ? sections.filter((s) => s.roles.includes(role)) : [];
    const roleMatch = withRole.some((s) => !empty(s));
    const titled = doc?.lead === chunk.id && chunk.heading === chunk.docTitle;
    const roleBelowTitle = withRole.some((s) => !empty(s) && !(titled && s === own));
    const rolePlaceholder = withRole.length > 0 && !roleMatch;
    // S-153: of the sections holding the role, those whose heading carries the question's own words are the ones asked
    // for: "how do I mitigate X?" asks for "Mitigation", not "Escalation". A "To be added." Mitigation merged into one
    // passage above a full Escalation was answered from the escalation, since the role had a section with content.
    const title = new Set(tokenize(chunk.docTitle));
    const askedByName = withRole.filter((s) => tokenize(s.heading).some((t) => questionWords.has(t) && !title.has(t)));
    const askedSectionsEmpty = askedByName.length > 0 && askedByName.every(empty);
    const docWithRole = role && doc ? doc.sections.filter((s) => s.roles.includes(role)) : [];
    const roleElsewhere = conventional && !roleMatch && docWithRole.some((s) => !empty(s));
    const roleAbsent = conventional && !docWithRole.some((s) => !empty(s));
    const otherRole = role !== null && own.roles.length > 0 && !own.roles.includes(role);
    const postmortemDoc = POSTMORTEM_DOC.test(`${chunk.doc} ${chunk.docTitle}`);
    const postmortem = (intent.intent === 'procedure' || intent.intent === 'diagnosis') && own.roles.includes('postmortem');
    const value = intent.demanded ? valueCoverage(result, intent.demanded, predicate, entities, k) : { coverage: 0, sentence: null };
    const vc = value.coverage;
    const valueMissing = intent.demanded !== null && vc === 0;
    const disclaimed = disclaimsAsked(result, new Set(topicTerms));
    const propInDoc = proposition.size ? weightedShare([...proposition], docTerms, k.idf) : 1;
    const propInPassage = proposition.size ? weightedShare([...proposition], here, k.idf) : 1;
    const heading = new Set(tokenize(`${chunk.docTitle}\n${(chunk.path ?? []).join('\n')}\n${chunk.heading}`));
    const values: Record<(typeof FEATURE_NAMES)[number], number> = {
      logProduct: Math.log1p(product),
      dense: Math.max(0, result.dense ?? 0),
      bm25PerTerm: result.bm25 / Math.max(1, terms.length),
      lexicalMatch: result.bm25 / queryIdf,
      reciprocalRank: 1 / (i + 1),
      relativeProduct: maxProduct > 0 ? product / maxProduct : 0,
      topicCoverage: weightedShare(knownTopic, here, k.idf),
      predicateCoverage: weightedShare(predicate, here, k.idf),
      headingCoverage: weightedShare(knownTopic, heading, k.idf),
      documentCoverage: weightedShare(knownTopic, docTerms, k.idf),
      unknownTopicShare: topicTerms.length ? unknownWeight : 0,
      synonymCoverage: weightedShare(topicTerms, saidIn(here), k.idf),
      synonymDocumentCoverage: weightedShare(topicTerms, saidIn(docTerms), k.idf),
      unknownAfterSynonyms: topicTerms.length ? weightedShare(topicTerms, new Set(unsaid), k.idf) : 0,
      nounCoverage: weightedShare(knownNouns, here, k.idf),
      nounDocumentCoverage: weightedShare(knownNouns, docTerms, k.idf),
      unknownNounShare: nouns.length ? unknownNouns : 0,
      missingNameFromDocument: names.length ? 1 - weightedShare(names, withClass(docTerms, doc?.passages ?? [chunk]), k.idf) : 0,
      missingNameFromPassage: names.length ? 1 - weightedShare(names, withClass(here, [chunk]), k.idf) : 0,
      missingEntity: missingEntities.length > 0 ? 1 : 0,
      missingEntityFromDocument: missingFromDocument.length > 0 ? 1 : 0,
      identifyingEntity: Number.isFinite(rarest) ? 1 / Math.log2(1 + rarest) : 0,
      roleMatch: roleMatch ? 1 : 0,
      rolePlaceholder: rolePlaceholder ? 1 : 0,
      roleElsewhereInDocument: roleElsewhere ? 1 : 0,
      roleAbsentFromDocument: roleAbsent ? 1 : 0,
      otherRole: otherRole ? 1 : 0,
      placeholder: empty(own) ? 1 : 0,
      ownBodyWords: Math.log1p(own.words),
      ownLinkShare: own.linkShare,
      postmortemRecord: postmortem ? 1 : 0,
      postmortemDocument: postmortemDoc ? 1 : 0,
      procedureFromPostmortem: postmortemDoc && (intent.intent === 'procedure' || intent.intent === 'diagnosis') ? 1 : 0,
      runbookDocument: RUNBOOK_DOC.test(`${chunk.doc} ${chunk.docTitle}`) || CAMEL_ALERT.test(chunk.docTitle) ? 1 : 0,
      valueMissing: valueMissing ? 1 : 0,
      valueCoverage: vc,
      disclaims: disclaimed ? 1 : 0,
      propositionMissingFromDocument: 1 - propInDoc,
      propositionMissingFromPassage: 1 - propInPassage,
      softCoverage: softCoverage(plainTopic, chunk, here, k),
    };
    return {
      result,
      product,
      missingEntities,
      missingFromDocument,
      valueMissing,
      valueSentence: value.sentence,
      disclaims: disclaimed,
      placeholder: empty(own),
      roleMatch,
      roleBelowTitle,
      documentLead: doc?.lead === chunk.id,
      rolePlaceholder,
      postmortemRecord: postmortem,
      askedHeading: askedSectionsEmpty ? askedByName[0]!.heading : chunk.heading,
      placeholderAsked: askedSectionsEmpty || (empty(own) && (rolePlaceholder || weightedShare(knownTopic, new Set(tokenize(chunk.heading)), k.idf) > 0)),
      propositionMissing: propInDoc < 1,
      propositionUnsaid: {
        document: asWritten([...proposition].filter((t) => !docTerms.has(t))),
        passage: asWritten([...proposition].filter((t) => !here.has(t))),
      },
      vector: FEATURE_NAMES.map((n) => values[n]),
    };
  };
  const passages = retrieval.results.map(measure);
  // Issue 9 class 6 (S-059): "what do I do when OrdersDbPoolSaturated fires?" shares no word with its runbook's
  // steps section, so that section is not retrieved and the answer quoted the runbook's lead. The sections of a
  // retrieved document that hold the role asked for are measured too — read only to choose what an answer quotes,
  // never rated: the verdict stands on the retrieved passages alone.
  const retrieved = new Set(retrieval.results.map((r) => r.chunk.id));
  const docs = role ? [...new Set(retrieval.results.map((r) => r.chunk.doc))] : [];
  // Only a section whose own heading names the role is measured (a cheap read of its cached headings first):
  // measuring every passage of six documents would cost `ask` several times its budget.
  const namesRole = (c: Chunk) => {
    const doc = k.documentOf(c.doc);
    const own = (parsedOf(c).sections ??= sectionsOfPassage(c.heading, c.text, c.level, doc?.lead === c.id));
    const titled = doc?.lead === c.id && c.heading === c.docTitle;
    return own.some((s, j) => s.roles.includes(role!) && !empty(s) && !(titled && j === 0));
  };
  const unretrievedSections = docs
    .flatMap((d) => k.documentOf(d)?.passages ?? [])
    .filter((c) => !retrieved.has(c.id) && namesRole(c))
    .map((chunk) => measure({ chunk, bm25: 0, dense: 0, fused: 0 }, retrieval.results.length))
    .filter((p) => p.roleBelowTitle);
  let bestIndex = 0;
  passages.forEach((p, i) => {
    if (p.product > passages[bestIndex]!.product) bestIndex = i;
  });
  return {
    terms,
    respellings,
    nearMisses,
    topicTerms,
    missingTerms,
    missingWords: asWritten(missingTerms),
    unknownWords: asWritten(topicTerms.filter((t) => !k.knows(t))),
    unknownNounWords: asWritten(unknownNounTerms),
    unreadWords: unreadableWords(question),
    indexWords: [...new Set(words(question).filter((w) => !isStopword(w)))],
    coverage: topicTerms.length ? (topicTerms.length - missingTerms.length) / topicTerms.length : 0,
    entities,
    intent,
    demanded: intent.demanded,
    degraded: retrieval.degraded,
    ...(retrieval.degradedReason ? { degradedReason: retrieval.degradedReason } : {}),
    score: retrieval.degraded || passages.length === 0 ? null : passages[bestIndex]!.product,
    bestIndex,
    passages,
    unretrievedSections,
  };
}

/**
 * Does this passage plainly fail to answer, whatever a model says? It never
 * names an entity asked about, states no value where one is demanded, disclaims
 * the topic, holds only a placeholder for the section asked for, or (for a
 * yes/no question about a remedy or cause) its document never mentions it.
 */
export function passes(p: PassageFeatures, f: AnswerabilityFeatures): boolean {
  return !(
    p.missingEntities.length ||
    p.valueMissing ||
    p.disclaims ||
    p.rolePlaceholder ||
    p.placeholderAsked ||
    p.postmortemRecord ||
    (f.intent.intent === 'yes-no' && p.propositionMissing)
  );
}

/**
 * The question-stage input, in QUESTION_FEATURE_NAMES order, from the passage
 * stage's choice (`probabilities`, a softmax) and its raw scores (which carry how
 * good the best passage is in absolute terms, not only relative to the others).
 */
export function questionVector(f: AnswerabilityFeatures, probabilities: readonly number[], scores: readonly number[]): number[] {
  let best = 0;
  probabilities.forEach((p, i) => {
    if (p > probabilities[best]!) best = i;
  });
  const sorted = [...scores].sort((a, b) => b - a);
  const b = f.passages[best];
  const at = (name: FeatureName) => (b ? b.vector[FEATURE_NAMES.indexOf(name)]! : 0);
  const intent = f.intent.intent;
  const values: Record<(typeof QUESTION_FEATURE_NAMES)[number], number> = {
    bestScore: sorted[0] ?? 0,
    secondScore: sorted[1] ?? sorted[0] ?? 0,
    bestShare: probabilities[best] ?? 0,
    likelyPassages: probabilities.filter((p) => p >= 0.25).length,
    documentsInTop3: new Set(f.passages.slice(0, 3).map((p) => p.result.chunk.doc)).size,
    retrievedCoverage: f.coverage,
    unknownTopicShare: at('unknownTopicShare'),
    unknownNounShare: at('unknownNounShare'),
    bestPasses: b && passes(b, f) ? 1 : 0,
    bestMissingEntity: b?.missingEntities.length ? 1 : 0,
    bestValueMissing: b?.valueMissing ? 1 : 0,
    bestRolePlaceholder: b?.rolePlaceholder || b?.placeholderAsked ? 1 : 0,
    bestPropositionMissing: intent === 'yes-no' && b?.propositionMissing ? 1 : 0,
    bestTopicCoverage: at('topicCoverage'),
    bestSynonymCoverage: at('synonymCoverage'),
    bestNounCoverage: at('nounCoverage'),
    bestDocumentCoverage: at('documentCoverage'),
    bestMissingName: at('missingNameFromDocument'),
    bestRoleMatch: b?.roleMatch ? 1 : 0,
    bestHeadingCoverage: at('headingCoverage'),
    bestPredicateCoverage: at('predicateCoverage'),
    bestValueCoverage: at('valueCoverage'),
    bestDense: at('dense'),
    bestLexicalMatch: at('lexicalMatch'),
    bestSoftCoverage: at('softCoverage'),
  };
  return QUESTION_FEATURE_NAMES.map((n) => values[n]);
}
