import { graphDescription } from '@sandscope/engine/orchestrator';
import { describe, expect, it } from 'vitest';
import { graphSchema } from './graph.ts';

describe('graphSchema', () => {
  it('parses the graph the engine describes (what the agent serves at /v1/graph)', () => {
    const graph = graphSchema.parse(graphDescription());
    expect(graph.nodes.some((n) => n.terminal && n.file !== null)).toBe(true);
    expect(graph.edges.some((e) => e.conditional)).toBe(true);
  });

  it('refuses an edge whose ends are renamed (source/target, as LangGraph names them)', () => {
    const graph = graphDescription();
    const edges = graph.edges.map((e) => ({ source: e.from, target: e.to, conditional: e.conditional }));
    expect(graphSchema.safeParse({ ...graph, edges }).success).toBe(false);
  });

  it('refuses a node without its file (the page links each box to it)', () => {
    const graph = graphDescription();
    const nodes = graph.nodes.map(({ file: _, ...rest }) => rest);
    expect(graphSchema.safeParse({ ...graph, nodes }).success).toBe(false);
  });
});
