import { type AskResult, type Examination, type KnowledgeBase, toAskResult } from '../knowledge-base.ts';
import type { Terminal, Workload } from '../types.ts';
import type { ClaimFailure } from './citation-check.ts';
import type { ProviderRunEvent, RunEvent } from './events.ts';
import type { RunSpend } from './model-factory.ts';
import { type Outcome, outcomeOf } from './outcome.ts';
import type { RiskAssessment } from './risk-scorer.ts';
import type { Attempt, RunState } from './state.ts';

/** One draft attempt with what the verifier said of it. */
export interface AttemptRecord extends Attempt {
  /** null when the run ended before this draft was verified (never, in this graph). */
  readonly verified: boolean | null;
  readonly failures: readonly ClaimFailure[];
}

/**
 * A finished run: the CLI's `ask --json` shape (AskResult) plus the run's own
 * fields (docs/API.md "Run result"). Plain JSON: this is what is streamed as
 * the SSE `result`, stored as the run row, and approved from.
 */
export interface RunResult extends AskResult {
  readonly runId: string;
  /** The gated run an approval run was created from (seed ADR-0006); null for an ordinary run. */
  readonly parentRunId: string | null;
  /** Same as parentRunId on an approval run: what was approved. */
  readonly approvedFrom: string | null;
  readonly question: string;
  readonly workload: Workload;
  readonly corpusVersion: string;
  /**
   * Where the graph stopped. `verdict` (from AskResult) stays the evidence
   * gate's decision, which a later stop can overrule: read `outcome` for what
   * the run amounts to.
   */
  readonly terminal: Terminal;
  /** outcomeOf(verdict, terminal): the one word the CLI, the API and the website show. */
  readonly outcome: Outcome;
  readonly risk: RiskAssessment | null;
  /** The proposed action's text, when the run got as far as proposing one. */
  readonly action: string | null;
  readonly attempts: readonly AttemptRecord[];
  /** Every event of the run in order: nodes, and the provider, cache and spend events of its model calls. */
  readonly trace: readonly RunEvent[];
  /** The provider events alone (also in `trace`). */
  readonly providers: readonly ProviderRunEvent[];
  readonly spend: RunSpend;
  readonly startedAt: number;
  readonly endedAt: number;
}

export interface RunMeta {
  readonly corpusVersion: string;
  readonly trace: readonly RunEvent[];
  readonly spend: RunSpend;
  readonly startedAt: number;
  readonly endedAt: number;
  readonly totalMs: number;
}

/** Milliseconds per node over the run (a node that ran twice is summed), plus the total. */
function nodeTimings(trace: readonly RunEvent[], totalMs: number): Record<string, number> {
  const timings: Record<string, number> = {};
  for (const e of trace) {
    if (e.type === 'node' && e.kind === 'end' && e.durationMs !== undefined) timings[e.node] = (timings[e.node] ?? 0) + e.durationMs;
  }
  timings['total'] = totalMs;
  return timings;
}

/** The final graph state as the run result. */
export function toRunResult(state: RunState, kb: KnowledgeBase, meta: RunMeta): RunResult {
  if (!state.retrieval || !state.features || !state.assessment || !state.terminal) {
    throw new Error(`run ${state.runId} ended without reaching a terminal through the gate`);
  }
  const exam: Examination = {
    question: state.question,
    retrieval: state.retrieval,
    features: state.features,
    assessment: state.assessment,
    adjudication: state.adjudication ?? null,
    verdict: state.verdict ?? 'refused',
    reasons: state.reasons,
    evidence: state.evidence ?? [],
    refusal: state.refusal ?? null,
  };
  const claims = state.terminal === 'emit' || state.terminal === 'await_approval' ? [...(state.claims ?? [])] : [];
  const ask = toAskResult(exam, claims, (id) => kb.chunk(id), nodeTimings(meta.trace, meta.totalMs));
  const answer =
    state.terminal === 'escalate'
      ? `Escalated to a person: no draft could be verified against the passages. ${state.reasons[state.reasons.length - 1] ?? ''}`.trim()
      : ask.answer;
  const attempts: AttemptRecord[] = state.attempts.map((a, i) => {
    const v = state.verifications[i];
    return { ...a, verified: v ? v.ok : null, failures: v ? v.failures : [] };
  });
  return {
    ...ask,
    answer,
    runId: state.runId,
    parentRunId: null,
    approvedFrom: null,
    question: state.question,
    workload: state.workload,
    corpusVersion: meta.corpusVersion,
    terminal: state.terminal,
    outcome: outcomeOf(exam.verdict, state.terminal),
    risk: state.risk ?? null,
    action: state.action?.text ?? null,
    attempts,
    trace: [...meta.trace],
    providers: meta.trace.filter((e): e is ProviderRunEvent => e.type === 'provider'),
    spend: meta.spend,
    startedAt: meta.startedAt,
    endedAt: meta.endedAt,
  };
}
