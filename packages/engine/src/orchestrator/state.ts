import type { Adjudication, Assessment, Decision } from '../answerability/decide.ts';
import type { AnswerabilityFeatures } from '../answerability/features.ts';
import type { Retrieval } from '../retrieval/hybrid-retriever.ts';
import type { Chunk, Claim, RefusalClaim, Terminal, Verdict, Workload } from '../types.ts';
import type { Verification } from './citation-check.ts';
import type { RiskAssessment } from './risk-scorer.ts';
import type { ProposedAction } from './workloads.ts';

/** One hypothesise call: who answered, what it cost, what it drafted. */
export interface Attempt {
  readonly attempt: number;
  /** A retry carrying verifier feedback; marked so the semantic cache never serves it (D-006). */
  readonly correction: boolean;
  readonly feedback: readonly string[];
  /** Router candidate that served it, `cache` for a cache hit, or null when the call failed. */
  readonly provider: string | null;
  /** `hit:exact`, `hit:semantic`, `miss`, `bypass` (a correction), or null when no cache is in the stack. */
  readonly cache: string | null;
  readonly tokensIn: number;
  readonly tokensOut: number;
  readonly costUsd: number;
  /** The parsed draft, or null when the reply was not a draft (or the call failed). */
  readonly claims: readonly Claim[] | null;
  /** The call failed in a way a retry inside this run cannot fix (budget, every provider down): escalate. */
  readonly error?: { readonly code: string; readonly message: string };
  /** The cache's held write for this draft, committed by verify only if the draft passes (S-012). */
  readonly cacheWriteToken?: string;
  /** The cache entry this draft was served from or is stored under: what a "wrong answer" mark evicts (S-132). */
  readonly cacheKey?: string;
}

/**
 * The run's state. Nodes are functions of it that return only what they
 * changed (STYLE 4); list fields have append reducers (`reduceRunState`) so a
 * node adds to the record instead of rewriting it. A field no node has set yet
 * is absent, as it was under LangGraph's channels; the types describe it once set.
 */
export interface RunState {
  readonly runId: string;
  readonly question: string;
  readonly workload: Workload;
  /** classify */
  readonly entities: readonly string[];
  readonly services: readonly string[];
  /** retrieve */
  readonly query: string;
  /** What the QUESTION retrieves: the evidence gate's only input, so no workload can loosen it. */
  readonly retrieval: Retrieval | null;
  /**
   * Passages only the workload's query found that name everything the question
   * is about: drafting context appended after the gate's evidence when the gate
   * lets the question through. Never read by the gate.
   */
  readonly context: readonly Chunk[];
  /** assess_evidence */
  readonly features: AnswerabilityFeatures | null;
  readonly assessment: Assessment | null;
  /** The one answerability decision, taken once here; adjudicate applies its adjudication. */
  readonly decision: Decision | null;
  /** adjudicate */
  readonly adjudication: Adjudication | null;
  /** answered (sufficient), partial (adjudicated — stays flagged to the result), refused. */
  readonly verdict: Verdict | null;
  /** What a refusal claims (S-108), set by the node that refuses: assess_evidence, or adjudicate. */
  readonly refusal: RefusalClaim | null;
  /** Appended. */
  readonly reasons: string[];
  /** Passages the draft is written from, the carrier first. */
  readonly evidence: readonly Chunk[];
  /** hypothesise; appended. */
  readonly attempts: Attempt[];
  readonly draft: readonly Claim[] | null;
  /** verify; appended. */
  readonly verifications: Verification[];
  readonly feedback: readonly string[];
  /** The verified draft: empty until verify passes. */
  readonly claims: readonly Claim[];
  /** propose_action */
  readonly action: ProposedAction | null;
  /** risk_gate */
  readonly risk: RiskAssessment | null;
  /** terminals */
  readonly terminal: Terminal | null;
}

/** What a node returns: only the fields it changed. List fields are appended by their reducers. */
export type RunUpdate = Partial<RunState> & {
  /**
   * The update's `reasons` replace the record instead of adding to it, as LangGraph's `Overwrite` does a channel's.
   * Only adjudicate sets it, for an answer the reader withheld (S-253): the reader's reason leads, the gate's follow.
   */
  readonly restatesReasons?: true;
};

/** The fields whose updates are appended, not replaced: the record of reasons, attempts and verifications. */
const APPENDED = ['reasons', 'attempts', 'verifications'] as const satisfies readonly (keyof RunState)[];
type AppendedField = (typeof APPENDED)[number];

/** A run's state before its first node: the question, and empty lists for the appended fields. */
export function initialRunState(input: Pick<RunState, 'runId' | 'question' | 'workload'>): RunState {
  // The rest is absent until a node sets it (see RunState).
  return { runId: input.runId, question: input.question, workload: input.workload, reasons: [], attempts: [], verifications: [] } as unknown as RunState;
}

/** Folds one node's update into the state: appended fields grow (`reasons` is replaced when restated), the rest are replaced. Never mutates `state`. */
export function reduceRunState(state: RunState, update: RunUpdate): RunState {
  const { restatesReasons, ...fields } = update;
  const next: Record<string, unknown> = { ...state, ...fields };
  for (const field of APPENDED) {
    const added = fields[field as AppendedField];
    if (added !== undefined) next[field] = field === 'reasons' && restatesReasons ? [...added] : [...state[field], ...added];
  }
  return next as unknown as RunState;
}
