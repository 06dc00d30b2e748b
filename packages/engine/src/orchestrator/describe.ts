import type { KnowledgeBase } from '../knowledge-base.ts';
import { buildRunGraph, type CompiledRunGraph, type GraphDependencies } from './graph.ts';
import { isTerminalNode, NODE_FILES, type NodeId } from './graph-shape.ts';
import { WORKLOADS } from './workloads.ts';

export interface GraphDescription {
  /** Every node of the graph as it runs, `__start__`/`__end__` included (file null). */
  readonly nodes: readonly { readonly id: string; readonly terminal: boolean; readonly file: string | null }[];
  readonly edges: readonly { readonly from: string; readonly to: string; readonly conditional: boolean }[];
  /** The graph drawn as Mermaid, in the layout LangGraph drew before the runner replaced it (ADR-0004). */
  readonly mermaid: string;
}

/**
 * The graph as built — read back from the runner's own table (`getGraph()`),
 * the one it walks on every run — so the picture on the website and the
 * structure test see what actually runs.
 * `file` is the repo path implementing each node; the website links boxes to it.
 */
export function graphDescription(graph: CompiledRunGraph = drawingGraph()): GraphDescription {
  const drawn = graph.getGraph();
  const nodes = Object.values(drawn.nodes).map((n) => ({
    id: n.id,
    terminal: isTerminalNode(n.id),
    file: Object.hasOwn(NODE_FILES, n.id) ? NODE_FILES[n.id as NodeId] : null,
  }));
  const edges = drawn.edges.map((e) => ({ from: e.source, to: e.target, conditional: e.conditional ?? false }));
  return { nodes, edges, mermaid: drawn.drawMermaid() };
}

/**
 * The same graph, compiled with no knowledge base — for drawing it (the CLI's
 * `graph`, the website's architecture page) without loading a corpus. Nodes
 * read their dependencies only when they run, so running it fails loudly.
 */
export function drawingGraph(): CompiledRunGraph {
  const deps: GraphDependencies = {
    get kb(): KnowledgeBase {
      throw new Error('this graph was compiled for drawing only; build an Orchestrator to run questions');
    },
    workloads: WORKLOADS,
  };
  return buildRunGraph(deps);
}
