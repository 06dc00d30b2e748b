import { Annotation } from '@langchain/langgraph';
import type { Adjudication, Assessment, Decision } from '../answerability/decide.ts';
import type { AnswerabilityFeatures } from '../answerability/features.ts';
import type { Retrieval } from '../retrieval/hybrid-retriever.ts';
import type { Chunk, Claim, Terminal, Verdict, Workload } from '../types.ts';
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
}

const append = <T>(current: readonly T[], update: readonly T[]): T[] => [...current, ...update];

/**
 * The run's state. Nodes are functions of it that return only what they
 * changed (STYLE 4); list fields have append reducers so a node adds to the
 * record instead of rewriting it.
 */
export const RunStateAnnotation = Annotation.Root({
  runId: Annotation<string>,
  question: Annotation<string>,
  workload: Annotation<Workload>,
  /** classify */
  entities: Annotation<readonly string[]>,
  services: Annotation<readonly string[]>,
  /** retrieve */
  query: Annotation<string>,
  /** What the QUESTION retrieves: the evidence gate's only input, so no workload can loosen it. */
  retrieval: Annotation<Retrieval | null>,
  /**
   * Passages only the workload's query found that name everything the question
   * is about: drafting context appended after the gate's evidence when the gate
   * lets the question through. Never read by the gate.
   */
  context: Annotation<readonly Chunk[]>,
  /** assess_evidence */
  features: Annotation<AnswerabilityFeatures | null>,
  assessment: Annotation<Assessment | null>,
  /** The one answerability decision, taken once here; adjudicate applies its adjudication. */
  decision: Annotation<Decision | null>,
  /** adjudicate */
  adjudication: Annotation<Adjudication | null>,
  /** answered (sufficient), partial (adjudicated — stays flagged to the result), refused. */
  verdict: Annotation<Verdict | null>,
  reasons: Annotation<string[]>({ reducer: append, default: () => [] }),
  /** Passages the draft is written from, the carrier first. */
  evidence: Annotation<readonly Chunk[]>,
  /** hypothesise */
  attempts: Annotation<Attempt[]>({ reducer: append, default: () => [] }),
  draft: Annotation<readonly Claim[] | null>,
  /** verify */
  verifications: Annotation<Verification[]>({ reducer: append, default: () => [] }),
  feedback: Annotation<readonly string[]>,
  /** The verified draft: empty until verify passes. */
  claims: Annotation<readonly Claim[]>,
  /** propose_action */
  action: Annotation<ProposedAction | null>,
  /** risk_gate */
  risk: Annotation<RiskAssessment | null>,
  /** terminals */
  terminal: Annotation<Terminal | null>,
});

export type RunState = typeof RunStateAnnotation.State;
/** What a node returns: only the fields it changed. List fields are appended by their reducers. */
export type RunUpdate = Partial<RunState>;
