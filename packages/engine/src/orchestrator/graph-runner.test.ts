import { describe, expect, it } from 'vitest';
import { type DeclaredGraph, END, GraphRunner, GraphStepLimitError } from './graph-runner.ts';
import { initialRunState, reduceRunState } from './state.ts';

/**
 * The runner that replaced LangGraph's executor (ADR-0004) keeps the checks
 * LangGraph made: a malformed graph is refused when built, a router may not
 * take an edge it did not declare, a loop stops at the step limit. The real
 * graph's shape is graph.test.ts; these use a toy graph so each check is alone.
 */
type Id = 'a' | 'b' | 'c';
interface S {
  readonly visits: readonly Id[];
  readonly next?: Id;
}
type U = Partial<S>;
const reduce = (state: S, update: U): S => ({ ...state, ...update, visits: [...state.visits, ...(update.visits ?? [])] });
const visit = (id: Id) => (state: S) => ({ visits: [id], next: state.next });

function toy(route: (state: S) => Id): DeclaredGraph<S, Id> {
  return {
    name: 'toy',
    start: 'a',
    nodes: ['a', 'b', 'c'],
    exits: { a: { kind: 'branch', route, targets: ['b', 'c'] }, b: { kind: 'edge', to: 'a' }, c: { kind: 'edge', to: END } },
  };
}
const nodes = { a: visit('a'), b: visit('b'), c: visit('c') };

describe('GraphRunner', () => {
  it('walks edges and branches to END, folding each update with the reducer', async () => {
    let loops = 0;
    const runner = new GraphRunner(
      toy(() => (loops++ < 2 ? 'b' : 'c')),
      nodes,
      reduce,
    );
    const final = await runner.invoke({ visits: [] }, undefined, { stepLimit: 50 });
    expect(final.visits).toEqual(['a', 'b', 'a', 'b', 'a', 'c']);
  });

  it('stops before the next node once its signal is aborted, though the node that met the abort carried on (S-258)', async () => {
    const stop = new AbortController();
    const reason = new Error('the replica is shutting down');
    // `a` meets the abort mid-node and, as the adjudicator does with a failed model call, returns as if nothing happened.
    const carriesOn = { ...nodes, a: (state: S) => (stop.abort(reason), visit('a')(state)) };
    const runner = new GraphRunner(
      toy(() => 'c'),
      carriesOn,
      reduce,
    );
    await expect(runner.invoke({ visits: [] }, undefined, { stepLimit: 50, signal: stop.signal })).rejects.toBe(reason);
    await expect(runner.invoke({ visits: [] }, undefined, { stepLimit: 50, signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
  });

  it('refuses a router that chooses a node it did not declare', async () => {
    const runner = new GraphRunner(
      toy(() => 'a'),
      nodes,
      reduce,
    );
    await expect(runner.invoke({ visits: [] }, undefined, { stepLimit: 50 })).rejects.toThrow(
      /the router after a chose a, not one of its declared targets \(b, c\)/,
    );
  });

  it('stops a routing loop at the step limit, having run exactly that many nodes', async () => {
    let ran = 0;
    const counted = { a: () => ((ran += 1), {}), b: () => ((ran += 1), {}), c: () => ((ran += 1), {}) };
    const runner = new GraphRunner(
      toy(() => 'b'),
      counted,
      reduce,
    );
    const error = await runner.invoke({ visits: [] }, undefined, { stepLimit: 7 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GraphStepLimitError);
    expect((error as Error).message).toMatch(/^graph toy took more than 7 steps without reaching __end__ \(last: b → a → b → a → b → a\); a router loops$/);
    expect(ran).toBe(7);
  });

  it('refuses, when built, a node without an exit, an exit to an undeclared node, and a node without a function', () => {
    const declared = toy(() => 'c');
    expect(() => new GraphRunner({ ...declared, exits: { ...declared.exits, c: undefined } } as never, nodes, reduce)).toThrow(/node c has no exit/);
    expect(() => new GraphRunner({ ...declared, exits: { ...declared.exits, b: { kind: 'edge', to: 'd' } } } as never, nodes, reduce)).toThrow(
      /node b goes to d, which is not declared/,
    );
    expect(() => new GraphRunner(declared, { a: nodes.a, b: nodes.b } as never, reduce)).toThrow(/node c has no function/);
  });

  it('enumerates what it runs, __start__ and __end__ included, and draws it', () => {
    const drawn = new GraphRunner(
      toy(() => 'c'),
      nodes,
      reduce,
    ).getGraph();
    expect(Object.keys(drawn.nodes)).toEqual(['__start__', 'a', 'b', 'c', '__end__']);
    expect(drawn.edges.map((e) => `${e.source}${e.conditional ? ' -.-> ' : ' --> '}${e.target}`)).toEqual([
      '__start__ --> a',
      'a -.-> b',
      'a -.-> c',
      'b --> a',
      'c --> __end__',
    ]);
    expect(drawn.drawMermaid()).toContain('\ta -.-> b;\n');
  });
});

describe('the run state reducer', () => {
  it('appends reasons, attempts and verifications; replaces the rest; never mutates', () => {
    const s0 = initialRunState({ runId: 'r', question: 'q', workload: 'triage' });
    const s1 = reduceRunState(s0, { reasons: ['one'], verdict: 'answered' });
    const s2 = reduceRunState(s1, { reasons: ['two'], verdict: 'refused' });
    expect(s2.reasons).toEqual(['one', 'two']);
    expect(s2.verdict).toBe('refused');
    expect(s0.reasons).toEqual([]);
    expect(s1.reasons).toEqual(['one']);
    expect(s2.attempts).toEqual([]);
  });
});
