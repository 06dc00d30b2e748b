import { round3 } from '../round.ts';
import type { AdjudicationMode } from '../answerability/model.ts';
import { END, type LangGraphRunnableConfig, START, StateGraph } from '@langchain/langgraph';
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
import { type RunState, RunStateAnnotation } from './state.ts';
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

/** What each invocation brings: its own model stack and its own trace (config.configurable). */
export interface RunScope {
  readonly model: RunModel;
  readonly trace: TraceRecorder;
}

const RUN_SCOPE_KEY = 'sandscopeRun';

export function runScopeConfig(scope: RunScope): LangGraphRunnableConfig {
  return { configurable: { [RUN_SCOPE_KEY]: scope } };
}

function runScopeOf(config: LangGraphRunnableConfig): RunScope {
  const scope = config.configurable?.[RUN_SCOPE_KEY] as RunScope | undefined;
  if (!scope) throw new Error('the run graph was invoked without a run scope; use Orchestrator.run()');
  return scope;
}

/** Wraps a node in the one tracing every node gets: `start`, then `end` with its key outputs and duration. */
function traced(spec: NodeSpec, deps: GraphDependencies) {
  return async (state: RunState, config: LangGraphRunnableConfig) => {
    const { model, trace } = runScopeOf(config);
    const ctx: NodeContext = { kb: deps.kb, workloads: deps.workloads, maxAttempts: deps.maxAttempts ?? MAX_DRAFT_ATTEMPTS, adjudication: deps.adjudication ?? 'offline', model, trace };
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

export function afterAssessment(state: RunState): 'refuse' | 'adjudicate' | 'hypothesise' {
  const band = state.assessment?.band;
  // Refused at assessment whatever the band: two passages disagree on the value asked for (issue 12, defect 9).
  if (state.verdict === 'refused') return 'refuse';
  if (band === 'sufficient') return 'hypothesise';
  if (band === 'ambiguous') return 'adjudicate';
  return 'refuse';
}

export function afterAdjudication(state: RunState): 'hypothesise' | 'refuse' {
  return state.adjudication?.decision === 'partial' && state.evidence.length > 0 ? 'hypothesise' : 'refuse';
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
 * The one orchestration graph (seed §Four). Twelve nodes, every workload:
 *
 *   classify → retrieve → assess_evidence ⟨refuse | adjudicate | hypothesise⟩
 *   adjudicate ⟨hypothesise (flagged partial) | refuse⟩
 *   hypothesise → verify ⟨hypothesise (with feedback) | escalate | propose_action⟩
 *   propose_action → risk_gate ⟨await_approval | emit⟩
 *
 * The four terminals go to END and nowhere else. Built once per knowledge base;
 * each run brings its own model and trace through `config.configurable`.
 */
export function buildRunGraph(deps: GraphDependencies) {
  const maxAttempts = deps.maxAttempts ?? MAX_DRAFT_ATTEMPTS;
  const byId = new Map<NodeId, NodeSpec>(NODE_SPECS.map((s) => [s.id, s]));
  const node = (id: NodeId) => traced(byId.get(id)!, deps);
  return new StateGraph(RunStateAnnotation)
    .addNode('classify', node('classify'))
    .addNode('retrieve', node('retrieve'))
    .addNode('assess_evidence', node('assess_evidence'))
    .addNode('adjudicate', node('adjudicate'))
    .addNode('hypothesise', node('hypothesise'))
    .addNode('verify', node('verify'))
    .addNode('propose_action', node('propose_action'))
    .addNode('risk_gate', node('risk_gate'))
    .addNode('refuse', node('refuse'))
    .addNode('escalate', node('escalate'))
    .addNode('await_approval', node('await_approval'))
    .addNode('emit', node('emit'))
    .addEdge(START, 'classify')
    .addEdge('classify', 'retrieve')
    .addEdge('retrieve', 'assess_evidence')
    .addConditionalEdges('assess_evidence', afterAssessment, ['refuse', 'adjudicate', 'hypothesise'])
    .addConditionalEdges('adjudicate', afterAdjudication, ['hypothesise', 'refuse'])
    .addEdge('hypothesise', 'verify')
    .addConditionalEdges('verify', afterVerification(maxAttempts), ['hypothesise', 'escalate', 'propose_action'])
    .addEdge('propose_action', 'risk_gate')
    .addConditionalEdges('risk_gate', afterRiskGate, ['await_approval', 'emit'])
    .addEdge('refuse', END)
    .addEdge('escalate', END)
    .addEdge('await_approval', END)
    .addEdge('emit', END)
    .compile({ name: 'sandscope-run' });
}

export type CompiledRunGraph = ReturnType<typeof buildRunGraph>;
