import type { AdjudicationMode } from '../answerability/model.ts';
import type { KnowledgeBase } from '../knowledge-base.ts';
import type { Workload } from '../types.ts';
import type { TraceRecorder } from './events.ts';
import type { NodeId } from './graph-shape.ts';
import type { RunModel } from './model-factory.ts';
import type { RunState, RunUpdate } from './state.ts';
import type { WorkloadDefinition } from './workloads.ts';

/** What a node may use besides the state: fixed when the graph is built, or scoped to one run. */
export interface NodeContext {
  /** Graph-wide: built once. */
  readonly kb: KnowledgeBase;
  readonly workloads: Readonly<Record<Workload, WorkloadDefinition>>;
  readonly maxAttempts: number;
  /** Who judges the ambiguous band (`ADJUDICATOR`): the offline rules, or an LLM through this run's model. */
  readonly adjudication: AdjudicationMode;
  /** This run only: its model stack (its injected failures, its budget) and its trace. */
  readonly model: RunModel;
  readonly trace: TraceRecorder;
}

/**
 * One node: a function of the state returning a partial update, plus what of
 * that update its `end` event reports. The graph wraps every node in the same
 * tracing, so no node can forget to emit.
 */
export interface NodeSpec {
  readonly id: NodeId;
  run(state: RunState, ctx: NodeContext): Promise<RunUpdate> | RunUpdate;
  /** Key outputs for the trace — small, readable, never the whole state. */
  summarise(update: RunUpdate, state: RunState): Record<string, unknown>;
}
