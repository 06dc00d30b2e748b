import { round3 } from './round.ts';
import { type AnswerabilityFeatures, answerabilityFeatures, type CorpusKnowledge, type DocumentKnowledge } from './answerability/features.ts';
import { type Adjudication, type Assessment, type Decision, decideAnswerability } from './answerability/decide.ts';
import { askAgainQuestions } from './answerability/ask-again.ts';
import { type AdjudicationMode, type AnswerabilityModel, type Bands, bandsFor, parseModel } from './answerability/model.ts';
import { type SectionRole, sectionsOfPassage } from './answerability/section-role.ts';
import shippedModel from './answerability/answerability-model.json' with { type: 'json' };
import { draftExtractive } from './answer/extractive.ts';
import { answerText } from './answer/answer-text.ts';
import { footnoteIds } from './answer/footnotes.ts';
import { citedHeadings } from './answer/cited-heading.ts';
import type { Estate } from './corpus/estate.ts';
import { estateClassNamer } from './corpus/estate-classes.ts';
import { chunkCorpus } from './corpus/chunker.ts';
import { hazardsOf, type PassageHazard } from './corpus/passage-hazards.ts';
import { decodeSnapshot, encodeSnapshot, type IndexParts, SnapshotError } from './knowledge-base-snapshot.ts';
import { HashingEmbedder } from './retrieval/hashing-embedder.ts';
import type { Embedder } from './retrieval/embedder.ts';
import { DEFAULT_DEPTH, HybridRetriever, indexText, type Retrieval } from './retrieval/hybrid-retriever.ts';
import { EntityLexicon } from './retrieval/question-shape.ts';
import { Respeller } from './retrieval/respelling.ts';
import { NO_THESAURUS, type Thesaurus } from './retrieval/thesaurus.ts';
import { NO_WORD_VECTORS, type WordVectors } from './retrieval/word-vectors.ts';
import { tokenize } from './retrieval/tokenizer.ts';
import type { Band, Chunk, Claim, RefusalClaim, SourceDocument, Verdict } from './types.ts';
import { withoutMarkdownExtension } from './corpus/markdown-name.ts';

let shipped: AnswerabilityModel | undefined;

function embedderOf(input: KnowledgeBaseInput): Embedder | null {
  return input.embedder === undefined ? new HashingEmbedder() : input.embedder;
}

/**
 * The model the product ships: trained by `npm run train`, validated
 * leave-one-corpus-out. Read on first use, so measuring features (which training
 * does before any model exists for them) never needs it.
 */
export function shippedAnswerabilityModel(): AnswerabilityModel {
  if (!shipped) {
    const parsed = parseModel(shippedModel);
    if (!parsed.ok) throw new Error(parsed.message);
    shipped = parsed.model;
  }
  return shipped;
}

export interface KnowledgeBaseInput {
  readonly documents: readonly SourceDocument[];
  readonly estate?: Estate | null;
  /** The answerability model; defaults to the shipped one. */
  readonly model?: AnswerabilityModel;
  /** Bands fitted for this corpus (`sandscope calibrate`), replacing the model's own. */
  readonly bands?: Bands;
  /** Defaults to the hashing embedder; null runs degraded (lexical only) on purpose. */
  readonly embedder?: Embedder | null;
  /** Synonyms the decision reads (WordNet, handed in by the edge); none when absent. */
  readonly thesaurus?: Thesaurus;
  /** Word vectors the decision reads (GloVe, handed in by the edge); none when absent. */
  readonly wordVectors?: WordVectors;
}

/** The whole decision for one question, before any drafting. */
export interface Examination extends Decision {
  readonly question: string;
  readonly retrieval: Retrieval;
  readonly features: AnswerabilityFeatures;
}

/** The CLI's `--json` shape (issue 2). */
export interface AskResult {
  readonly verdict: Verdict;
  readonly band: Band;
  readonly score: number | null;
  /** The model's probability that the library answers this (null when degraded). */
  readonly answerability: number | null;
  readonly reasons: readonly string[];
  /** What a refusal claims (S-108): the library does not answer, the model is unsure, or the library disagrees; null unless refused. */
  readonly refusal: RefusalClaim | null;
  /** The question again with each slip the refusal offers a word for replaced by it (S-180); empty unless refused. */
  readonly askAgain: readonly string[];
  readonly answer: string;
  readonly claims: readonly Claim[];
  readonly sources: readonly { chunkId: string; doc: string; heading: string; text: string }[];
  readonly degraded: boolean;
  readonly timingsMs: Record<string, number>;
}

/** A stable version of the corpus text: cache keys and run records carry it. */
export function corpusVersion(documents: readonly SourceDocument[]): string {
  const sorted = [...documents].sort((a, b) => a.doc.localeCompare(b.doc));
  // FNV-1a of the documents joined as `doc\0text` with \1 between, and of the same prefixed by its length —
  // both in one pass over the pieces, without making the joined string (a replica computes this before it
  // can look for its index snapshot; at 100k documents the joined copies were most of it, issue 11).
  let length = Math.max(0, sorted.length - 1);
  for (const d of sorted) length += d.doc.length + 1 + d.text.length;
  let plain = 0x811c9dc5;
  let prefixed = 0x811c9dc5;
  const step = (text: string) => {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      plain = Math.imul(plain ^ c, 0x01000193);
      prefixed = Math.imul(prefixed ^ c, 0x01000193);
    }
  };
  const prefix = `${length}:`;
  for (let i = 0; i < prefix.length; i++) prefixed = Math.imul(prefixed ^ prefix.charCodeAt(i), 0x01000193);
  sorted.forEach((d, k) => {
    if (k > 0) step('\u0001');
    step(d.doc);
    step('\u0000');
    step(d.text);
  });
  return `${(plain >>> 0).toString(16).padStart(8, '0')}${(prefixed >>> 0).toString(16).padStart(8, '0')}`;
}

/** Each document's index terms and sections (with their roles), for features that read beyond one passage. */
export function documentIndex(chunks: readonly Chunk[]): Map<string, DocumentKnowledge> {
  const out = new Map<string, { terms: Set<string>; sections: SectionRole[]; lead: string; passages: Chunk[] }>();
  for (const c of chunks) {
    let d = out.get(c.doc);
    if (!d) out.set(c.doc, (d = { terms: new Set(), sections: [], lead: c.id, passages: [] }));
    d.passages.push(c);
    for (const t of tokenize(indexText(c))) d.terms.add(t);
    d.sections.push(...sectionsOfPassage(c.heading, c.text, c.level, d.lead === c.id));
  }
  return out;
}

/** Every index term of a file name, title or heading: the words the corpus names things with. */
export function nameVocabulary(chunks: readonly Chunk[]): Set<string> {
  const out = new Set<string>();
  for (const c of chunks) {
    for (const t of tokenize(`${withoutMarkdownExtension(c.doc).replace(/[/_]+/g, ' ')}\n${c.docTitle}\n${(c.path ?? []).join('\n')}\n${c.heading}`))
      out.add(t);
    for (const line of c.text.split('\n')) if (/^#{1,6}\s/.test(line)) for (const t of tokenize(line)) out.add(t);
  }
  return out;
}

/**
 * A corpus made answerable: its passages, the hybrid index rebuilt in memory
 * (no replica keeps index state on disk — NFR-005), the entity lexicon, and the
 * answerability model. Pure: documents come in as strings.
 */
export class KnowledgeBase {
  private constructor(
    readonly documents: readonly SourceDocument[],
    readonly chunks: readonly Chunk[],
    readonly estate: Estate | null,
    readonly retriever: HybridRetriever,
    readonly lexicon: EntityLexicon,
    private readonly chosenModel: AnswerabilityModel | undefined,
    private readonly chosenBands: Bands | undefined,
    readonly version: string,
    private readonly knowledge: CorpusKnowledge,
    /** Passages holding text that is never quoted (issue 12, defect 9), marked once at indexing. */
    readonly hazards: ReadonlyMap<string, readonly PassageHazard[]>,
    private readonly index: IndexParts,
    private readonly respeller: Respeller | null,
  ) {}

  /** Reads the library for respelling now rather than on the first question with a slip (Respeller.prepare). */
  prepareRespelling(): void {
    this.respeller?.prepare();
  }

  static async build(input: KnowledgeBaseInput): Promise<KnowledgeBase> {
    const chunks = chunkCorpus(input.documents);
    const embedder = embedderOf(input);
    const retriever = await HybridRetriever.build(chunks, embedder);
    const estateNames = input.estate ? input.estate.services.flatMap((s) => [s.id, s.name]) : [];
    const lexicon = new EntityLexicon(chunks, estateNames);
    const hazards = new Map(
      chunks.flatMap((c) => {
        const h = hazardsOf(c);
        return h.length ? [[c.id, h] as const] : [];
      }),
    );
    return KnowledgeBase.assemble(
      input,
      {
        version: corpusVersion(input.documents),
        chunks,
        retriever: retriever.parts,
        lexicon: lexicon.parts,
        documents: documentIndex(chunks),
        names: nameVocabulary(chunks),
        hazards,
      },
      retriever,
      lexicon,
    );
  }

  /**
   * The knowledge base an index snapshot holds (see `snapshot`), over the same documents, estate and embedder:
   * nothing is chunked, tokenized or embedded again. The model, bands, thesaurus and word vectors come from `input`, as for
   * build. The version is the snapshot's: the caller found it under this corpus version (reading 100k
   * documents again to check was a second of a restore). Throws SnapshotError for bytes that are not a snapshot of this layout, and when the snapshot's
   * vectors are of another embedder than `input`'s — the caller then builds.
   */
  static restore(input: KnowledgeBaseInput, snapshot: Uint8Array): KnowledgeBase {
    const index = decodeSnapshot(snapshot);
    const embedder = embedderOf(input);
    // A snapshot made without vectors (no embedder, or one that failed at index time) would pin that
    // degradation on a base meant to have them, and vectors of another space would rank nonsense.
    if (index.retriever.embedderId !== (embedder?.id ?? null)) {
      throw new SnapshotError(
        `index snapshot has ${index.retriever.embedderId ? `vectors of ${index.retriever.embedderId}` : 'no vectors'}; this knowledge base embeds with ${embedder?.id ?? 'nothing'}`,
      );
    }
    const retriever = HybridRetriever.restore(index.chunks, index.retriever, embedder);
    return KnowledgeBase.assemble(input, index, retriever, EntityLexicon.restore(index.chunks, index.lexicon));
  }

  private static assemble(input: KnowledgeBaseInput, index: IndexParts, retriever: HybridRetriever, lexicon: EntityLexicon): KnowledgeBase {
    const thesaurus = input.thesaurus ?? NO_THESAURUS;
    const vectors = input.wordVectors ?? NO_WORD_VECTORS;
    // A slip of the keys is told from a word the library lacks by a dictionary: without one, nothing is respelled (S-173).
    const respeller =
      input.thesaurus || input.wordVectors
        ? new Respeller(
            () => retriever.terms(),
            (t) => retriever.knows(t),
            (w) => thesaurus.isWord(w) || vectors.vectorOf(w) !== undefined,
            function* () {
              for (const c of index.chunks) yield `${c.docTitle}\n${c.heading}\n${c.text}`;
            },
          )
        : null;
    const { documents: docs, names } = index;
    const classes = estateClassNamer(input.estate);
    const knowledge: CorpusKnowledge = {
      lexicon,
      idf: (t) => retriever.idf(t),
      knows: (t) => retriever.knows(t),
      documentOf: (doc) => docs.get(doc),
      isName: (t) => names.has(t),
      related: (t) => thesaurus.related(t),
      ...(respeller ? { respell: (q: string) => respeller.respell(q) } : {}),
      vectorOf: (w) => vectors.vectorOf(w),
      ...(classes ? { namesClassOf: classes } : {}),
    };
    return new KnowledgeBase(
      input.documents,
      index.chunks,
      input.estate ?? null,
      retriever,
      lexicon,
      input.model,
      input.bands,
      index.version,
      knowledge,
      index.hazards,
      index,
      respeller,
    );
  }

  /** This knowledge base's index as bytes, for a replica to `restore` instead of building (issue 11). */
  snapshot(): Uint8Array {
    return encodeSnapshot(this.index);
  }

  /** The model in force: the one given, else the shipped one, with this corpus's calibrated bands if any. */
  get model(): AnswerabilityModel {
    const base = this.chosenModel ?? shippedAnswerabilityModel();
    return this.chosenBands ? { ...base, bands: this.chosenBands } : base;
  }

  /** The bands in force (the model's, or this corpus's calibrated ones). */
  get bands(): Bands {
    return this.model.bands;
  }

  private byId: Map<string, Chunk> | undefined;

  chunk(id: string): Chunk | undefined {
    this.byId ??= new Map(this.chunks.map((c) => [c.id, c]));
    return this.byId.get(id);
  }

  async retrieve(question: string, depth = DEFAULT_DEPTH): Promise<Retrieval> {
    return this.retriever.search(this.knowledge.respell?.(question).text ?? question, depth);
  }

  /** Measure the evidence once; the decision may then be taken under any model. */
  features(question: string, retrieval: Retrieval): AnswerabilityFeatures {
    return answerabilityFeatures(question, retrieval, this.knowledge);
  }

  /**
   * The one decision (the evaluation calls the same function on the same features). `reader` is the run's
   * adjudicator when it differs from `mode`: a run with a reader that no model judged is decided offline, and says so
   * (S-252, S-254).
   */
  decide(
    features: AnswerabilityFeatures,
    model: AnswerabilityModel = this.model,
    mode: AdjudicationMode = 'offline',
    reader: AdjudicationMode = mode,
  ): Decision {
    return decideAnswerability(features, model, bandsFor(model, mode), mode === 'model', reader === 'model');
  }

  async examine(question: string, options: { depth?: number; model?: AnswerabilityModel } = {}): Promise<Examination> {
    const retrieval = await this.retrieve(question, options.depth);
    const features = this.features(question, retrieval);
    return { question, retrieval, features, ...this.decide(features, options.model) };
  }

  /** The whole offline path of issue 2: examine, then draft extractively from the evidence. */
  async ask(question: string, options: { depth?: number; model?: AnswerabilityModel } = {}): Promise<AskResult> {
    const t0 = performance.now();
    const exam = await this.examine(question, options);
    const t1 = performance.now();
    const claims = exam.verdict === 'refused' ? [] : draftExtractive(question, exam.evidence);
    const t2 = performance.now();
    return toAskResult(exam, claims, (id) => this.chunk(id), { examine: t1 - t0, draft: t2 - t1, total: t2 - t0 });
  }
}

export type { Adjudication, Assessment, Decision };

/** A refusal's text: its first reason, led by "the library does not answer this" only where that is what it claims (S-108). */
export function refusalText(refusal: RefusalClaim, reason: string, library = 'The library'): string {
  if (refusal === 'absent') return `${library} does not answer this. ${reason}`.trim();
  if (refusal === 'unsure' && !reason.startsWith('Not answered')) return `Not answered: the model is unsure. ${reason}`.trim();
  return reason;
}

export function toAskResult(
  exam: Examination,
  claims: readonly Claim[],
  chunkOf: (id: string) => Chunk | undefined,
  timingsMs: Record<string, number>,
): AskResult {
  const sourceIds = footnoteIds(claims);
  const headings = citedHeadings(claims, chunkOf);
  const sources = sourceIds.flatMap((id) => {
    const c = chunkOf(id);
    return c ? [{ chunkId: c.id, doc: c.doc, heading: headings.get(id) ?? c.heading, text: c.text }] : [];
  });
  const refusal = exam.verdict === 'refused' ? (exam.refusal ?? 'unsure') : null;
  const answer = refusal ? refusalText(refusal, exam.reasons[0] ?? '') : answerText(claims, sourceIds, chunkOf);
  return {
    verdict: exam.verdict,
    band: exam.assessment.band,
    score: exam.assessment.score === null ? null : round3(exam.assessment.score),
    answerability: exam.assessment.answerability === null ? null : round3(exam.assessment.answerability),
    reasons: exam.reasons,
    refusal,
    askAgain: refusal ? askAgainQuestions(exam.question, exam.features.nearMisses) : [],
    answer,
    claims,
    sources,
    degraded: exam.retrieval.degraded,
    timingsMs: Object.fromEntries(Object.entries(timingsMs).map(([k, v]) => [k, round3(v)])),
  };
}
