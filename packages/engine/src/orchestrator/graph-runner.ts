/**
 * The executor of a declared graph (ADR-0004, decided): nodes, plain edges and
 * conditional branches are DATA, and this small runner walks them — one node at
 * a time, its partial update folded into the state by the state's reducers,
 * the next node read from the node's edge or asked of its branch's router.
 *
 * It replaced LangGraph's Pregel executor, whose per-run machinery (a LangSmith
 * RunTree per runnable even with tracing off, uuids, config merging, channel
 * bookkeeping) cost more than every node of the run together, measured by
 * `npm run load:profile`. Our graph is a chain with branches — one node runs at
 * a time, no fan-out, no checkpoints, no interrupts (ADR-0006: approval is a new
 * run, never a resume) — so none of that machinery had anything to do.
 *
 * What LangGraph gave that is kept: the graph is checked when it is built (every
 * node has exactly one way out, every target is declared), a router may only
 * return a target it declared (the structure test's edges are the whole truth),
 * a run stops at a step limit instead of looping, and the graph enumerates its
 * nodes and edges and draws itself as Mermaid (`getGraph()`), with LangGraph's
 * `__start__`/`__end__` names so the drawing and the API's shape are unchanged.
 */

export const START = '__start__';
export const END = '__end__';

/** Where a node goes next: always one node (an edge), or one of a declared set chosen by a router of the state. */
export type Exit<S, Id extends string> =
  | { readonly kind: 'edge'; readonly to: Id | typeof END }
  | { readonly kind: 'branch'; readonly route: (state: S) => Id; readonly targets: readonly Id[] };

export interface DeclaredGraph<S, Id extends string> {
  readonly name: string;
  readonly start: Id;
  /** Every node, in the order it is drawn; each has exactly one exit. */
  readonly nodes: readonly Id[];
  readonly exits: Readonly<Record<Id, Exit<S, Id>>>;
}

/** The graph as drawn: the shape LangGraph's `getGraph()` had, which the structure test and `describe()` read. */
export interface DrawnGraph {
  readonly nodes: Readonly<Record<string, { readonly id: string }>>;
  readonly edges: readonly { readonly source: string; readonly target: string; readonly conditional: boolean }[];
  drawMermaid(): string;
}

/** A node: a function of the state (and the run's scope) returning only what it changed. */
export type NodeFunction<S, U, Scope> = (state: S, scope: Scope) => Promise<U> | U;

/** A run took more steps than the limit: a routing loop, stopped instead of spinning (LangGraph's GraphRecursionError). */
export class GraphStepLimitError extends Error {
  constructor(graph: string, limit: number, path: readonly string[]) {
    super(`graph ${graph} took more than ${limit} steps without reaching ${END} (last: ${path.slice(-6).join(' → ')}); a router loops`);
    this.name = 'GraphStepLimitError';
  }
}

export class GraphRunner<S, U, Scope, Id extends string> {
  readonly #declared: DeclaredGraph<S, Id>;
  readonly #run: Readonly<Record<Id, NodeFunction<S, U, Scope>>>;
  readonly #reduce: (state: S, update: U) => S;

  constructor(declared: DeclaredGraph<S, Id>, run: Readonly<Record<Id, NodeFunction<S, U, Scope>>>, reduce: (state: S, update: U) => S) {
    const known = new Set<string>(declared.nodes);
    const problems: string[] = [];
    if (!known.has(declared.start)) problems.push(`the start node ${declared.start} is not declared`);
    for (const id of declared.nodes) {
      const exit = declared.exits[id];
      if (!exit) problems.push(`node ${id} has no exit`);
      else if (exit.kind === 'edge' && exit.to !== END && !known.has(exit.to)) problems.push(`node ${id} goes to ${exit.to}, which is not declared`);
      else if (exit.kind === 'branch') {
        if (exit.targets.length === 0) problems.push(`node ${id} branches to nothing`);
        for (const t of exit.targets) if (!known.has(t)) problems.push(`node ${id} may branch to ${t}, which is not declared`);
      }
      if (typeof run[id] !== 'function') problems.push(`node ${id} has no function`);
    }
    for (const id of Object.keys(declared.exits)) if (!known.has(id)) problems.push(`an exit is declared for ${id}, which is not a node`);
    if (problems.length > 0) throw new Error(`graph ${declared.name} is malformed: ${problems.join('; ')}`);
    this.#declared = declared;
    this.#run = run;
    this.#reduce = reduce;
  }

  /**
   * Runs from the start node to END; returns the final state. An aborted `signal` stops the run before its next node,
   * throwing the signal's reason (S-258: a node that meets the abort as a failed model call, as the adjudicator does,
   * carries on, so the runner is where a stopped run stops).
   */
  async invoke(initial: S, scope: Scope, options: { readonly stepLimit: number; readonly signal?: AbortSignal }): Promise<S> {
    const { exits, start, name } = this.#declared;
    let state = initial;
    let at: Id | typeof END = start;
    const path: string[] = [];
    while (at !== END) {
      options.signal?.throwIfAborted();
      if (path.length >= options.stepLimit) throw new GraphStepLimitError(name, options.stepLimit, path);
      path.push(at);
      state = this.#reduce(state, await this.#run[at](state, scope));
      const exit: Exit<S, Id> = exits[at];
      if (exit.kind === 'edge') {
        at = exit.to;
      } else {
        const next = exit.route(state);
        // A router returning a node it did not declare would take an edge the drawing and the structure test never saw.
        if (!exit.targets.includes(next))
          throw new Error(`graph ${name}: the router after ${at} chose ${String(next)}, not one of its declared targets (${exit.targets.join(', ')})`);
        at = next;
      }
    }
    return state;
  }

  /** The declared nodes and edges, `__start__` and `__end__` included — what runs, since the runner reads the same table. */
  getGraph(): DrawnGraph {
    const { nodes, exits, start } = this.#declared;
    const drawnNodes: Record<string, { id: string }> = { [START]: { id: START } };
    for (const id of nodes) drawnNodes[id] = { id };
    drawnNodes[END] = { id: END };
    const edges: { source: string; target: string; conditional: boolean }[] = [{ source: START, target: start, conditional: false }];
    for (const id of nodes) {
      const exit: Exit<S, Id> = exits[id];
      if (exit.kind === 'edge') edges.push({ source: id, target: exit.to, conditional: false });
      else for (const t of exit.targets) edges.push({ source: id, target: t, conditional: true });
    }
    return { nodes: drawnNodes, edges, drawMermaid: () => mermaidOf(drawnNodes, edges) };
  }
}

/** Mermaid in the layout LangGraph drew (so the website's picture does not change): plain edges solid, branches dotted. */
function mermaidOf(nodes: Readonly<Record<string, { id: string }>>, edges: readonly { source: string; target: string; conditional: boolean }[]): string {
  const lines = ["%%{init: {'flowchart': {'curve': 'linear'}}}%%", 'graph TD;'];
  for (const id of Object.keys(nodes)) {
    if (id === START) lines.push(`\t${START}([<p>${START}</p>]):::first`);
    else if (id === END) lines.push(`\t${END}([<p>${END}</p>]):::last`);
    else lines.push(`\t${id}(${id})`);
  }
  for (const e of edges.filter((x) => !x.conditional)) lines.push(`\t${e.source} --> ${e.target};`);
  for (const e of edges.filter((x) => x.conditional)) lines.push(`\t${e.source} -.-> ${e.target};`);
  lines.push('\tclassDef default fill:#f2f0ff,line-height:1.2;', '\tclassDef first fill-opacity:0;', '\tclassDef last fill:#bfb6fc;');
  return `${lines.join('\n')}\n`;
}
