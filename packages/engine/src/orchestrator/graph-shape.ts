/**
 * The names of the orchestration graph's nodes and the files that implement
 * them — vocabulary only. The edges live in `graph.ts`, where they are built;
 * the structure test reads them back from the COMPILED graph, never from here.
 */

export const NODE_IDS = [
  'classify',
  'retrieve',
  'assess_evidence',
  'adjudicate',
  'hypothesise',
  'verify',
  'propose_action',
  'risk_gate',
  'refuse',
  'escalate',
  'await_approval',
  'emit',
] as const;

export type NodeId = (typeof NODE_IDS)[number];

/** Where a run stops. Each goes to END and nowhere else; `await_approval` in particular is never resumed (seed ADR-0006). */
export const TERMINAL_NODES = ['refuse', 'escalate', 'await_approval', 'emit'] as const satisfies readonly NodeId[];

export type TerminalNode = (typeof TERMINAL_NODES)[number];

export function isTerminalNode(id: string): id is TerminalNode {
  return (TERMINAL_NODES as readonly string[]).includes(id);
}

const NODES_DIR = 'packages/engine/src/orchestrator/nodes';

/** Repo path of the file implementing each node: the website links each box of the drawn graph to it. */
export const NODE_FILES: Readonly<Record<NodeId, string>> = {
  classify: `${NODES_DIR}/classify.ts`,
  retrieve: `${NODES_DIR}/retrieve.ts`,
  assess_evidence: `${NODES_DIR}/assess-evidence.ts`,
  adjudicate: `${NODES_DIR}/adjudicate.ts`,
  hypothesise: `${NODES_DIR}/hypothesise.ts`,
  verify: `${NODES_DIR}/verify.ts`,
  propose_action: `${NODES_DIR}/propose-action.ts`,
  risk_gate: `${NODES_DIR}/risk-gate.ts`,
  refuse: `${NODES_DIR}/terminals.ts`,
  escalate: `${NODES_DIR}/terminals.ts`,
  await_approval: `${NODES_DIR}/terminals.ts`,
  emit: `${NODES_DIR}/terminals.ts`,
};
