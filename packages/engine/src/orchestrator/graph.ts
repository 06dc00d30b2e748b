import { round3 } from '../round.ts';
import type { AdjudicationMode } from '../answerability/model.ts';
import type { KnowledgeBase } from '../knowledge-base.ts';
import type { Workload } from '../types.ts';
import type { TraceRecorder } from './events.ts';
import type { NodeId } from './graph-shape.ts';
import type { RunModel } from './model-factory.ts';
import type { NodeContext, NodeSpec } from './node-context.ts';
import { adjudicateNode } from './nodes/adjudicate.ts';
import { assessEvidenceNode } from './nodes/assess-evidence.ts';
import { classify } from './nodes/classify.ts';
import { hypothesise } from './nodes/hypothesise.ts';
import { proposeAction } from './nodes/propose-action.ts';
import { retrieve } from './nodes/retrieve.ts';
import { riskGate } from './nodes/risk-gate.ts';
import { awaitApproval, emit, escalate, refuse } from './nodes/terminals.ts';
import { verify } from './nodes/verify.ts';
import { RISK_THRESHOLD } from './risk-scorer.ts';
import { type DeclaredGraph, END, GraphRunner } from './graph-runner.ts';
import { reduceRunState, type RunState, type RunUpdate } from './state.ts';
import type { WorkloadDefinition } from './workloads.ts';

/** Draft attempts before a run escalates: the first try and two corrections. */
export const MAX_DRAFT_ATTEMPTS = 3;

/** What the graph is built from, once. Nothing here is per run. */
export interface GraphDependencies {
  readonly kb: KnowledgeBase;
  readonly workloads: Readonly<Record<Workload, WorkloadDefinition>>;
  readonly maxAttempts?: number;
  readonly adjudication?: AdjudicationMode;
}

/** What each invocation brings: its own model stack and its own trace. */
export interface RunScope {
  readonly model: RunModel;
  readonly trace: TraceRecorder;
}

/** Wraps a node in the one tracing every node gets: `start`, then `end` with its key outputs and duration. */
function traced(spec: NodeSpec, deps: GraphDependencies) {
  return async (state: RunState, scope: RunScope): Promise<RunUpdate> => {
    const { model, trace } = scope;
    const ctx: NodeContext = {
      kb: deps.kb,
      workloads: deps.workloads,
      maxAttempts: deps.maxAttempts ?? MAX_DRAFT_ATTEMPTS,
      adjudication: deps.adjudication ?? 'offline',
      model,
      trace,
    };
    trace.current = spec.id;
    trace.node(spec.id, 'start', {});
    const started = performance.now();
    try {
      const update = await spec.run(state, ctx);
      trace.node(spec.id, 'end', spec.summarise(update, state), round3(performance.now() - started));
      return update;
    } catch (error) {
      trace.node(spec.id, 'end', { error: error instanceof Error ? error.message : String(error) }, round3(performance.now() - started));
      throw error;
    } finally {
      trace.current = null;
    }
  };
}

// Routing: pure functions of the state. Each names every node it may return, so
// the compiled graph's conditional edges are exactly these and no others.

export function afterAssessment(mode: AdjudicationMode = 'offline') {
  return (state: RunState): 'refuse' | 'adjudicate' | 'hypothesise' => {
    const band = state.assessment?.band;
    // Refused at assessment whatever the band: two passages disagree on the value asked for (issue 12, defect 9).
    if (state.verdict === 'refused') return 'refuse';
    // With a reader, an answer is read before it is given (S-096): the sufficient band goes to adjudicate too.
    if (band === 'sufficient') return mode === 'model' ? 'adjudicate' : 'hypothesise';
    if (band === 'ambiguous') return 'adjudicate';
    // With a reader, a refusal of the insufficient band is read before it is given (S-100): assessment left it open.
    return mode === 'model' ? 'adjudicate' : 'refuse';
  };
}

export function afterAdjudication(state: RunState): 'hypothesise' | 'refuse' {
  // Partial from the carrier the adjudication names, or an answer the reader did not withhold (S-096).
  return state.verdict !== 'refused' && state.evidence.length > 0 ? 'hypothesise' : 'refuse';
}

export function afterVerification(maxAttempts: number) {
  return (state: RunState): 'propose_action' | 'hypothesise' | 'escalate' => {
    const last = state.verifications[state.verifications.length - 1];
    if (last?.ok) return 'propose_action';
    const attempt = state.attempts[state.attempts.length - 1];
    if (attempt?.error || state.attempts.length >= maxAttempts) return 'escalate';
    return 'hypothesise';
  };
}

export function afterRiskGate(state: RunState): 'await_approval' | 'emit' {
  // Fail safe: an action with no risk score is treated as above the line.
  return !state.risk || state.risk.score > RISK_THRESHOLD ? 'await_approval' : 'emit';
}

const NODE_SPECS: readonly NodeSpec[] = [
  classify,
  retrieve,
  assessEvidenceNode,
  adjudicateNode,
  hypothesise,
  verify,
  proposeAction,
  riskGate,
  refuse,
  escalate,
  awaitApproval,
  emit,
];

/**
 * The one orchestration graph (seed §Four), declared as data. Twelve nodes, every workload:
 *
 *   classify → retrieve → assess_evidence ⟨refuse | adjudicate | hypothesise⟩
 *   adjudicate ⟨hypothesise (flagged partial) | refuse⟩
 *   hypothesise → verify ⟨hypothesise (with feedback) | escalate | propose_action⟩
 *   propose_action → risk_gate ⟨await_approval | emit⟩
 *
 * The four terminals go to END and nowhere else. This table is what runs (the
 * GraphRunner walks it) and what is drawn and tested (`getGraph()`), so the two
 * cannot disagree.
 */
export function runGraphDeclaration(maxAttempts: number = MAX_DRAFT_ATTEMPTS, adjudication: AdjudicationMode = 'offline'): DeclaredGraph<RunState, NodeId> {
  return {
    name: 'sandscope-run',
    start: 'classify',
    nodes: NODE_SPECS.map((s) => s.id),
    exits: {
      classify: { kind: 'edge', to: 'retrieve' },
      retrieve: { kind: 'edge', to: 'assess_evidence' },
      assess_evidence: { kind: 'branch', route: afterAssessment(adjudication), targets: ['refuse', 'adjudicate', 'hypothesise'] },
      adjudicate: { kind: 'branch', route: afterAdjudication, targets: ['hypothesise', 'refuse'] },
      hypothesise: { kind: 'edge', to: 'verify' },
      verify: { kind: 'branch', route: afterVerification(maxAttempts), targets: ['hypothesise', 'escalate', 'propose_action'] },
      propose_action: { kind: 'edge', to: 'risk_gate' },
      risk_gate: { kind: 'branch', route: afterRiskGate, targets: ['await_approval', 'emit'] },
      refuse: { kind: 'edge', to: END },
      escalate: { kind: 'edge', to: END },
      await_approval: { kind: 'edge', to: END },
      emit: { kind: 'edge', to: END },
    },
  };
}

/** The graph, built once per knowledge base; each run brings its own model and trace (RunScope). */
export function buildRunGraph(deps: GraphDependencies): CompiledRunGraph {
  const run = Object.fromEntries(NODE_SPECS.map((spec) => [spec.id, traced(spec, deps)])) as Record<
    NodeId,
    (state: RunState, scope: RunScope) => Promise<RunUpdate>
  >;
  return new GraphRunner(runGraphDeclaration(deps.maxAttempts ?? MAX_DRAFT_ATTEMPTS, deps.adjudication), run, reduceRunState);
}

export type CompiledRunGraph = GraphRunner<RunState, RunUpdate, RunScope, NodeId>;
