import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { OfflineExtractiveModel } from '../models/offline-model.ts';
import { graphDescription } from './describe.ts';
import { bareModelFactory } from './model-factory.ts';
import { createOrchestrator, type Orchestrator } from './orchestrator.ts';
import { corpusKnowledgeBase, REPO_ROOT } from './testing/corpus-fixture.ts';

/**
 * The graph's shape, read from the graph AS IT RUNS (`getGraph()` of the
 * runner, which walks the same table on every run — ADR-0004), never from the
 * builder code: reading the builder only proves what the author intended
 * (seed §Four). The expected sets are written out here by hand on purpose.
 */
const WORK_NODES = ['classify', 'retrieve', 'assess_evidence', 'adjudicate', 'hypothesise', 'verify', 'propose_action', 'risk_gate'];
const TERMINALS = ['refuse', 'escalate', 'await_approval', 'emit'];

const EXPECTED_EDGES = [
  '__start__ -> classify',
  'classify -> retrieve',
  'retrieve -> assess_evidence',
  'assess_evidence -> refuse ?',
  'assess_evidence -> adjudicate ?',
  'assess_evidence -> hypothesise ?',
  'adjudicate -> hypothesise ?',
  'adjudicate -> refuse ?',
  'hypothesise -> verify',
  'verify -> hypothesise ?',
  'verify -> escalate ?',
  'verify -> propose_action ?',
  'propose_action -> risk_gate',
  'risk_gate -> await_approval ?',
  'risk_gate -> emit ?',
  'refuse -> __end__',
  'escalate -> __end__',
  'await_approval -> __end__',
  'emit -> __end__',
].sort();

let orchestrator: Orchestrator;

beforeAll(async () => {
  orchestrator = createOrchestrator({ kb: await corpusKnowledgeBase(), models: bareModelFactory(new OfflineExtractiveModel()) });
});

function compiled() {
  const drawn = orchestrator.graph.getGraph();
  const nodes = Object.keys(drawn.nodes).sort();
  const edges = drawn.edges.map((e) => `${e.source} -> ${e.target}${e.conditional ? ' ?' : ''}`).sort();
  return { nodes, edges, drawn };
}

describe('the compiled orchestration graph', () => {
  it('has exactly the 12 nodes, plus __start__ and __end__', () => {
    expect(compiled().nodes).toEqual([...WORK_NODES, ...TERMINALS, '__start__', '__end__'].sort());
  });

  it('has exactly the issue’s edge set, conditional where the run branches', () => {
    expect(compiled().edges).toEqual(EXPECTED_EDGES);
  });

  it('sends every terminal to __end__ and nowhere else', () => {
    const { drawn } = compiled();
    for (const t of TERMINALS) {
      expect(
        drawn.edges.filter((e) => e.source === t).map((e) => e.target),
        t,
      ).toEqual(['__end__']);
    }
  });

  it('lets await_approval reach no node that does work (seed ADR-0006: approval is a new run, never a resume)', () => {
    const { drawn } = compiled();
    const reached = new Set<string>();
    const queue = ['await_approval'];
    while (queue.length) {
      const from = queue.shift()!;
      for (const e of drawn.edges) {
        if (e.source === from && !reached.has(e.target)) {
          reached.add(e.target);
          queue.push(e.target);
        }
      }
    }
    expect([...reached]).toEqual(['__end__']);
  });

  it('describes itself from the graph as it runs: nodes with files that exist, edges, and Mermaid', () => {
    const d = orchestrator.describe();
    expect(d.nodes.map((n) => n.id).sort()).toEqual(compiled().nodes);
    expect(
      d.nodes
        .filter((n) => n.terminal)
        .map((n) => n.id)
        .sort(),
    ).toEqual([...TERMINALS].sort());
    for (const n of d.nodes) {
      if (n.id.startsWith('__')) expect(n.file).toBeNull();
      else expect(existsSync(`${REPO_ROOT}${n.file}`), `${n.id} → ${n.file}`).toBe(true);
    }
    expect(d.edges.map((e) => `${e.from} -> ${e.to}${e.conditional ? ' ?' : ''}`).sort()).toEqual(EXPECTED_EDGES);
    expect(d.mermaid).toMatch(/^%%\{init/);
    expect(d.mermaid).toContain('risk_gate -.-> await_approval;');
    expect(d.mermaid).toContain('await_approval --> __end__;');
    // The drawing-only graph (CLI `graph`, no corpus loaded) is the same graph.
    expect(graphDescription()).toEqual(d);
  });

  it('has no workload-specific branch: no node or routing code names a workload', () => {
    const dir = new URL('./', import.meta.url);
    const files = ['graph.ts', 'orchestrator.ts', ...readdirSync(new URL('nodes/', dir)).map((f) => `nodes/${f}`)];
    for (const f of files) {
      const source = readFileSync(new URL(f, dir), 'utf8');
      expect(source, f).not.toMatch(/['"`](triage|change|postmortem)['"`]/);
    }
  });
});
