export { Orchestrator, createOrchestrator, type OrchestratorOptions, type RunInput } from './orchestrator.ts';
export {
  buildRunGraph,
  runGraphDeclaration,
  MAX_DRAFT_ATTEMPTS,
  afterAssessment,
  afterAdjudication,
  afterVerification,
  afterRiskGate,
  type CompiledRunGraph,
  type GraphDependencies,
} from './graph.ts';
export { NODE_IDS, NODE_FILES, TERMINAL_NODES, isTerminalNode, type NodeId, type TerminalNode } from './graph-shape.ts';
export { graphDescription, drawingGraph, type GraphDescription } from './describe.ts';
export {
  TraceRecorder,
  type Clock,
  type NodeEvent,
  type ProviderRunEvent,
  type CacheRunEvent,
  type SpendRunEvent,
  type RunEvent,
  type RunEventSink,
} from './events.ts';
export {
  WORKLOADS,
  WORKLOAD_IDS,
  DEFAULT_WORKLOAD,
  TRIAGE,
  CHANGE,
  POSTMORTEM,
  isWorkload,
  parseWorkload,
  type WorkloadDefinition,
  type ProposedAction,
  type ActionInput,
} from './workloads.ts';
export {
  RISK_THRESHOLD,
  LOOKUP_CEILING,
  scoreRisk,
  servicesNamed,
  dependentsOf,
  type RiskAssessment,
  type RiskWeights,
  type RiskInput,
} from './risk-scorer.ts';
export { actionIntent, type ActionIntent, type ActReading } from './action-intent.ts';
export { actWordsIn, type ActKind } from './act-words.ts';
export { checkDraft, feedbackFor, numbersIn, identifiersIn, type ClaimFailure, type Verification } from './citation-check.ts';
export {
  stackModelFactory,
  bareModelFactory,
  type RunModel,
  type RunModelFactory,
  type RunModelRequest,
  type RunSpend,
  type StackModelFactoryOptions,
} from './model-factory.ts';
export { createApprovalRun, NotAwaitingApprovalError, type ApprovalOptions } from './approval.ts';
export { toRunResult, type RunResult, type AttemptRecord } from './run-result.ts';
export {
  OUTCOMES,
  OUTCOME_WORDS,
  outcomeOf,
  outcomeHasAnswer,
  outcomeWords,
  type Outcome,
  type OutcomeWords,
} from './outcome.ts';
export type { Attempt, RunState, RunUpdate } from './state.ts';
