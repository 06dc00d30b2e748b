import { round3 } from '../round.ts';
import { abortableRunModel } from './abortable-model.ts';
import type { AdjudicationMode } from '../answerability/model.ts';
import type { KnowledgeBase } from '../knowledge-base.ts';
import type { Workload } from '../types.ts';
import { type GraphDescription, graphDescription } from './describe.ts';
import { type Clock, type RunEventSink, TraceRecorder } from './events.ts';
import { buildRunGraph, type CompiledRunGraph, MAX_DRAFT_ATTEMPTS } from './graph.ts';
import type { RunModelFactory } from './model-factory.ts';
import { type RunResult, toRunResult } from './run-result.ts';
import { initialRunState } from './state.ts';
import { DEFAULT_WORKLOAD, isWorkload, WORKLOADS, type WorkloadDefinition } from './workloads.ts';

/** Node executions before a run is stopped as a routing loop (LangGraph's recursionLimit, kept): the longest real path is 14. */
const RUN_STEP_LIMIT = 50;

export interface OrchestratorOptions {
  readonly kb: KnowledgeBase;
  /** Builds each run's model stack (stackModelFactory in production). */
  readonly models: RunModelFactory;
  /** Sees every event of every run (the span store, metrics). Per-run observers go in RunInput.onEvent. */
  readonly sink?: RunEventSink;
  readonly clock?: Clock;
  readonly workloads?: Readonly<Record<Workload, WorkloadDefinition>>;
  /** Draft attempts before escalation (default 3). */
  readonly maxAttempts?: number;
  /** Who judges the ambiguous band (default offline); `model` asks an LLM through each run's model stack. */
  readonly adjudication?: AdjudicationMode;
  readonly newRunId?: () => string;
}

export interface RunInput {
  readonly question: string;
  /** Default triage. Parse user input with parseWorkload first. */
  readonly workload?: Workload;
  /** Providers to fail for this run only (the console's "tick a provider off", T-6). */
  readonly failProviders?: Iterable<string>;
  /** This run's observer: the SSE stream, the CLI's --trace. */
  readonly onEvent?: RunEventSink;
  readonly runId?: string;
  /**
   * Stops the run from outside (S-258: the service shutting down): its model calls are aborted, and it throws the
   * signal's reason before its next node instead of finishing.
   */
  readonly signal?: AbortSignal;
}

/**
 * The graph, compiled once from its dependencies, and the way to run it. Every
 * run gets a fresh model stack from the factory and a fresh trace; nothing of
 * one run is visible to another.
 */
export class Orchestrator {
  readonly graph: CompiledRunGraph;
  private readonly clock: Clock;
  private readonly newRunId: () => string;

  constructor(private readonly options: OrchestratorOptions) {
    this.graph = buildRunGraph({
      kb: options.kb,
      workloads: options.workloads ?? WORKLOADS,
      maxAttempts: options.maxAttempts ?? MAX_DRAFT_ATTEMPTS,
      adjudication: options.adjudication ?? 'offline',
    });
    this.clock = options.clock ?? Date.now;
    this.newRunId = options.newRunId ?? (() => globalThis.crypto.randomUUID());
  }

  describe(): GraphDescription {
    return graphDescription(this.graph);
  }

  async run(input: RunInput): Promise<RunResult> {
    const workload = input.workload ?? DEFAULT_WORKLOAD;
    if (!isWorkload(workload)) throw new TypeError(`unknown workload "${String(workload)}"; parse it with parseWorkload at the boundary`);
    const { kb } = this.options;
    const runId = input.runId ?? this.newRunId();
    const sinks = [this.options.sink, input.onEvent].filter((s): s is RunEventSink => s !== undefined);
    const trace = new TraceRecorder(runId, this.clock, sinks);
    input.signal?.throwIfAborted();
    const built = this.options.models({
      runId,
      workload,
      corpusVersion: kb.version,
      failProviders: new Set(input.failProviders ?? []),
      sinks: { provider: (e) => trace.provider(e), spend: (e) => trace.spend(e), cache: (e) => trace.cache(e) },
    });
    const model = input.signal ? abortableRunModel(built, input.signal) : built;
    const startedAt = this.clock();
    const t0 = performance.now();
    const final = await this.graph.invoke(
      initialRunState({ runId, question: input.question, workload }),
      { model, trace },
      { stepLimit: RUN_STEP_LIMIT, ...(input.signal ? { signal: input.signal } : {}) },
    );
    const totalMs = round3(performance.now() - t0);
    return toRunResult(final, kb, { corpusVersion: kb.version, trace: trace.events, spend: model.spend(), startedAt, endedAt: this.clock(), totalMs });
  }
}

export function createOrchestrator(options: OrchestratorOptions): Orchestrator {
  return new Orchestrator(options);
}
