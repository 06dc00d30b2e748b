/**
 * The agent API's shapes (docs/API.md), as the website reads them. Types only:
 * no value here knows where the agent lives or how to reach it, so this file is
 * safe for client components.
 */

/*
 * The run shapes are the shared contract's (@sandscope/api): zod schemas the
 * agent's responses are tested against and lib/agent.ts parses them with. They
 * are re-exported here, not copied, so the website cannot drift from the agent.
 * The other shapes below are still hand-written until they join the contract.
 */
export type {
  Band,
  Feedback,
  FeedbackLabel,
  NodeEvent,
  Outcome,
  ProviderEvent,
  ProviderEventKind,
  Risk,
  RunDetail,
  RunList,
  RunResult,
  RunStatus,
  RunSummary,
  Source,
  Spend,
  Terminal,
  Verdict,
  Workload,
} from '@sandscope/api';
import { type Workload, workloadSchema } from '@sandscope/api';

export const WORKLOADS: readonly Workload[] = workloadSchema.options;

export interface CorpusDocument {
  readonly doc: string;
  readonly title: string;
  readonly text: string;
  readonly words: number;
}

export interface CorpusChunk {
  readonly id: string;
  readonly doc: string;
  readonly heading: string;
}

export interface Gap {
  readonly topic: string;
  readonly terms: readonly string[];
  /** true (or the correction's text) for a topic once listed as a gap and found covered. */
  readonly correction: boolean | string | null;
}

export interface Corpus {
  readonly version: string;
  readonly documents: readonly CorpusDocument[];
  readonly chunks: readonly CorpusChunk[];
  readonly gaps: readonly Gap[];
  readonly questions: { readonly total: number; readonly byMechanism: Record<string, { readonly label: string; readonly n: number }> };
}

export interface Service {
  readonly id: string;
  readonly name: string;
  readonly tier: number;
  readonly kind: string;
  readonly owner?: string;
  readonly description?: string;
}

export interface Fault {
  readonly id: string;
  readonly name: string;
  readonly signals: readonly string[];
  readonly serviceKinds?: readonly string[];
  readonly runbook: string;
}

export interface Estate {
  readonly company?: string;
  readonly services: readonly Service[];
  readonly dependencies: readonly { readonly from: string; readonly to: string }[];
  readonly faults: readonly Fault[];
  readonly properties?: readonly Record<string, unknown>[];
  readonly policyValues?: readonly Record<string, unknown>[];
}

export interface GraphNode {
  readonly id: string;
  readonly terminal: boolean;
  readonly file: string | null;
}

export interface Graph {
  readonly nodes: readonly GraphNode[];
  readonly edges: readonly { readonly from: string; readonly to: string; readonly conditional: boolean }[];
  readonly mermaid?: string;
}

export interface Provider {
  readonly name: string;
  readonly model: string;
  readonly configured: boolean;
}

/**
 * The two bands on the answerability model's PROBABILITY (0..1): refuse below
 * `insufficientBelow`, answer at or above `sufficientAbove`, adjudicate between.
 * (Before the learned model they were thresholds on the dense × BM25 product score;
 * a report that still carries `thresholds` is an older one and its numbers are not bands.)
 */
export interface AnswerabilityBands {
  readonly insufficientBelow: number;
  readonly sufficientAbove: number;
}

/**
 * One row of `questions` in `GET /v1/eval/latest` (packages/eval's `QuestionRow`).
 * Every field but the id is optional on the wire: a report recorded before the
 * answerability model (or by a partial run) lacks some, and the page must still render.
 */
export interface EvalQuestionRow {
  readonly id: string;
  readonly corpus?: string;
  readonly question?: string;
  readonly label?: string;
  readonly mechanism?: string;
  readonly band?: string;
  readonly verdict?: string;
  /** The probability the model that scored it gave; null when retrieval was degraded or found nothing. */
  readonly answerability?: number | null;
  /** Whether adjudication would let it through as partial were it in the ambiguous band. */
  readonly adjudicable?: boolean;
  /** Whether its best passage fails no check: at or above the answer band it is answered only if so. */
  readonly bestPasses?: boolean;
  /** dense × BM25 of the strongest passage: the old gate's score, now only reported. */
  readonly score?: number | null;
  /** For an answered answerable question: did it cite its labelled passage. */
  readonly source?: 'right' | 'wrong' | 'unknown' | null;
  readonly rank?: number | null;
  readonly [feature: string]: unknown;
}

/** The four rates the report holds against issue 9's targets. */
export interface EvalTargets {
  readonly falseAnswerRate: number;
  readonly falseRefusalRate: number;
  readonly deferralRate: number;
  readonly rightSourceRate: number;
}

/** Pooled (or one corpus's) figures; packages/eval's `Metrics`. Optional: an older report lacks some. */
export interface EvalFigures {
  readonly n?: number;
  readonly answerable?: number;
  readonly unanswerable?: number;
  readonly falseAnswerRate?: number;
  readonly falseRefusalRate?: number;
  readonly deferralRate?: number;
  readonly partialRate?: number;
  readonly wrongSourceAnswers?: number;
  readonly rightSourceRate?: number;
  readonly procedureAnswers?: number;
  readonly stepsCoveredRate?: number;
  readonly mrr?: number;
  readonly recallAt6?: number;
}

/** One held-out corpus (leave-one-corpus-out) or fold (cross-validation); packages/eval's `CorpusFigures`. */
export interface EvalCorpusFigures extends EvalFigures {
  readonly name?: string;
  readonly questions?: number;
  /** Its README's words on whether its errors were read while the decision was developed (seen) or not (unseen). */
  readonly status?: string;
  /** Whether the bands it was scored with met both budgets on the data they were fitted on. */
  readonly workable?: boolean;
  readonly bands?: AnswerabilityBands;
}

export type EvalMode = 'leave-one-corpus-out' | 'cross-validated' | 'shipped-model';

/**
 * `docs/evaluation.json` without its rows (packages/eval's `EvaluationReport`
 * plus what `npm run eval:report` adds). Every field optional: the page must
 * survive an older or partial report.
 */
export interface EvalSummary extends EvalFigures {
  readonly mode?: EvalMode | string;
  readonly byMechanism?: Record<string, { label: string; n: number; answered: number; partial: number; refused: number; ambiguous: number }>;
  readonly corpora?: readonly EvalCorpusFigures[];
  readonly bands?: AnswerabilityBands;
  readonly budgets?: { readonly falseAnswerRate?: number; readonly falseRefusalRate?: number };
  readonly targets?: Partial<EvalTargets>;
  readonly evidenceErrors?: readonly { readonly corpus?: string; readonly id?: string; readonly message?: string }[];
  /** The generated set's cross-validation: the second figure, an upper bound. */
  readonly generated?: EvalSummary;
  readonly excluded?: readonly string[];
  readonly askP50Ms?: number;
  readonly generatedAt?: string;
  readonly createdAt?: string;
  readonly [key: string]: unknown;
}

export interface EvalLatest {
  readonly summary: EvalSummary;
  readonly questions: readonly EvalQuestionRow[];
}

/** `POST /v1/runs` body. */
export interface RunRequest {
  readonly question: string;
  readonly workload?: Workload;
  readonly failProviders?: readonly string[];
}
