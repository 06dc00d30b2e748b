import { draftExtractive } from './answer/extractive.ts';
import type { Estate } from './corpus/estate.ts';
import { chunkCorpus } from './corpus/chunker.ts';
import { fnv1a, HashingEmbedder } from './retrieval/hashing-embedder.ts';
import type { Embedder } from './retrieval/embedder.ts';
import { type Adjudication, adjudicate } from './retrieval/adjudicator.ts';
import { type Assessment, assessEvidence } from './retrieval/evidence-gate.ts';
import { type GateFeatures, gateFeatures } from './retrieval/gate-features.ts';
import { DEFAULT_THRESHOLDS, type GateThresholds } from './retrieval/gate-thresholds.ts';
import { DEFAULT_DEPTH, HybridRetriever, type Retrieval } from './retrieval/hybrid-retriever.ts';
import { EntityLexicon } from './retrieval/question-shape.ts';
import type { Band, Chunk, Claim, SourceDocument, Verdict } from './types.ts';

export interface KnowledgeBaseInput {
  readonly documents: readonly SourceDocument[];
  readonly estate?: Estate | null;
  readonly thresholds?: GateThresholds;
  /** Defaults to the hashing embedder; null runs degraded (lexical only) on purpose. */
  readonly embedder?: Embedder | null;
}

/** The gate's whole decision for one question, before any drafting. */
export interface Examination {
  readonly question: string;
  readonly retrieval: Retrieval;
  readonly features: GateFeatures;
  readonly assessment: Assessment;
  readonly adjudication: Adjudication | null;
  readonly verdict: Verdict;
  readonly reasons: readonly string[];
  /** Passages to draft from, the one carrying the answer first. Empty on refusal. */
  readonly evidence: readonly Chunk[];
}

/** The CLI's `--json` shape (issue 2). */
export interface AskResult {
  readonly verdict: Verdict;
  readonly band: Band;
  readonly score: number | null;
  readonly reasons: readonly string[];
  readonly answer: string;
  readonly claims: readonly Claim[];
  readonly sources: readonly { chunkId: string; doc: string; heading: string; text: string }[];
  readonly degraded: boolean;
  readonly timingsMs: Record<string, number>;
}

/** A stable version of the corpus text: cache keys and run records carry it. */
export function corpusVersion(documents: readonly SourceDocument[]): string {
  const sorted = [...documents].sort((a, b) => a.doc.localeCompare(b.doc));
  const joined = sorted.map((d) => `${d.doc}\u0000${d.text}`).join('\u0001');
  return `${fnv1a(joined).toString(16).padStart(8, '0')}${fnv1a(`${joined.length}:${joined}`).toString(16).padStart(8, '0')}`;
}

/**
 * A corpus made answerable: its passages, the hybrid index rebuilt in memory
 * (no replica keeps index state on disk — NFR-005), the entity lexicon, and the
 * gate's thresholds. Pure: documents come in as strings.
 */
export class KnowledgeBase {
  private constructor(
    readonly documents: readonly SourceDocument[],
    readonly chunks: readonly Chunk[],
    readonly estate: Estate | null,
    readonly retriever: HybridRetriever,
    readonly lexicon: EntityLexicon,
    readonly thresholds: GateThresholds,
    readonly version: string,
  ) {}

  static async build(input: KnowledgeBaseInput): Promise<KnowledgeBase> {
    const chunks = chunkCorpus(input.documents);
    const embedder = input.embedder === undefined ? new HashingEmbedder() : input.embedder;
    const retriever = await HybridRetriever.build(chunks, embedder);
    const estateNames = input.estate ? input.estate.services.flatMap((s) => [s.id, s.name]) : [];
    const lexicon = new EntityLexicon(chunks, estateNames);
    return new KnowledgeBase(input.documents, chunks, input.estate ?? null, retriever, lexicon, input.thresholds ?? DEFAULT_THRESHOLDS, corpusVersion(input.documents));
  }

  private byId: Map<string, Chunk> | undefined;

  chunk(id: string): Chunk | undefined {
    this.byId ??= new Map(this.chunks.map((c) => [c.id, c]));
    return this.byId.get(id);
  }

  async retrieve(question: string, depth = DEFAULT_DEPTH): Promise<Retrieval> {
    return this.retriever.search(question, depth);
  }

  /** Measure the evidence once; `decide` may then be run under any thresholds. */
  features(question: string, retrieval: Retrieval): GateFeatures {
    return gateFeatures(question, retrieval, { lexicon: this.lexicon, idf: (t) => this.retriever.idf(t), knows: (t) => this.retriever.knows(t) });
  }

  async examine(question: string, options: { depth?: number; thresholds?: GateThresholds } = {}): Promise<Examination> {
    const retrieval = await this.retrieve(question, options.depth);
    return decide(question, retrieval, this.features(question, retrieval), options.thresholds ?? this.thresholds);
  }

  /** The whole offline path of issue 2: examine, then draft extractively from the evidence. */
  async ask(question: string, options: { depth?: number; thresholds?: GateThresholds } = {}): Promise<AskResult> {
    const t0 = performance.now();
    const exam = await this.examine(question, options);
    const t1 = performance.now();
    const claims = exam.verdict === 'refused' ? [] : draftExtractive(question, exam.evidence);
    const t2 = performance.now();
    return toAskResult(exam, claims, (id) => this.chunk(id), { examine: t1 - t0, draft: t2 - t1, total: t2 - t0 });
  }
}

/** Gate, then adjudication for the ambiguous band: the decision as a pure function of the features. */
export function decide(question: string, retrieval: Retrieval, features: GateFeatures, thresholds: GateThresholds): Examination {
  const assessment = assessEvidence(features, thresholds);
  if (assessment.band === 'insufficient') {
    return { question, retrieval, features, assessment, adjudication: null, verdict: 'refused', reasons: assessment.reasons, evidence: [] };
  }
  if (assessment.band === 'sufficient') {
    const best = features.passages[features.bestIndex]!;
    const rest = features.passages.filter((p) => p !== best && p.missingEntities.length === 0).slice(0, 2);
    return { question, retrieval, features, assessment, adjudication: null, verdict: 'answered', reasons: assessment.reasons, evidence: [best, ...rest].map((p) => p.result.chunk) };
  }
  const adjudication = adjudicate(assessment, thresholds);
  const reasons = [...assessment.reasons, ...adjudication.reasons];
  return adjudication.decision === 'partial' && adjudication.carrier
    ? { question, retrieval, features, assessment, adjudication, verdict: 'partial', reasons, evidence: [adjudication.carrier.chunk] }
    : { question, retrieval, features, assessment, adjudication, verdict: 'refused', reasons, evidence: [] };
}

export function toAskResult(exam: Examination, claims: readonly Claim[], chunkOf: (id: string) => Chunk | undefined, timingsMs: Record<string, number>): AskResult {
  const sourceIds: string[] = [];
  for (const c of claims) for (const id of c.citations) if (!sourceIds.includes(id)) sourceIds.push(id);
  const sources = sourceIds.flatMap((id) => {
    const c = chunkOf(id);
    return c ? [{ chunkId: c.id, doc: c.doc, heading: c.heading, text: c.text }] : [];
  });
  const answer =
    exam.verdict === 'refused'
      ? `The library does not answer this. ${exam.reasons[exam.reasons.length - 1] ?? ''}`.trim()
      : claims.map((c) => `${c.text} ${c.citations.map((id) => `[${sourceIds.indexOf(id) + 1}]`).join('')}`).join(' ');
  const round = (n: number) => Math.round(n * 1000) / 1000;
  return {
    verdict: exam.verdict,
    band: exam.assessment.band,
    score: exam.assessment.score === null ? null : round(exam.assessment.score),
    reasons: exam.reasons,
    answer,
    claims,
    sources,
    degraded: exam.retrieval.degraded,
    timingsMs: Object.fromEntries(Object.entries(timingsMs).map(([k, v]) => [k, round(v)])),
  };
}
