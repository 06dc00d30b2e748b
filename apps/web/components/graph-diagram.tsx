import type { Graph, GraphNode } from '@sandscope/api/graph';
import { sourceHref } from './file-link';

/**
 * The agent's compiled graph, drawn from `GET /v1/graph` — never by hand, so
 * the picture cannot drift from the code. Layout is deterministic: back edges
 * (the citation loop) are found by depth-first search from the start, the rest
 * is layered by longest path, and nodes keep discovery order within a layer.
 */

const BOX_W = 168;
const BOX_H = 44;
const LAYER_GAP = 34;
const COL_GAP = 28;
const PAD = 48;
const LOOP_ROOM = 90;

export interface GraphLayout {
  readonly pos: Map<string, { x: number; y: number; layer: number }>;
  readonly back: Set<string>;
  readonly width: number;
  readonly height: number;
}

const edgeKey = (from: string, to: string) => `${from}\u0000${to}`;

/** `__end__` adds nothing a terminal's double edge does not already say; it is left out of the drawing. */
export function drawable(graph: Graph): Graph {
  const nodes = graph.nodes.filter((n) => n.id !== '__end__');
  const keep = new Set(nodes.map((n) => n.id));
  return { ...graph, nodes, edges: graph.edges.filter((e) => keep.has(e.from) && keep.has(e.to)) };
}

export function layoutGraph(graph: Graph): GraphLayout {
  const ids = graph.nodes.map((n) => n.id);
  const out = new Map<string, string[]>(ids.map((id) => [id, []]));
  const incoming = new Map<string, number>(ids.map((id) => [id, 0]));
  for (const e of graph.edges) {
    if (!out.has(e.from) || !out.has(e.to)) continue;
    out.get(e.from)!.push(e.to);
    incoming.set(e.to, (incoming.get(e.to) ?? 0) + 1);
  }
  const roots: string[] = ids.filter((id): boolean => id === '__start__').concat(ids.filter((id) => id !== '__start__' && (incoming.get(id) ?? 0) === 0));
  // DFS: an edge to a node on the current path is a back edge
  const back = new Set<string>();
  const state = new Map<string, 'open' | 'done'>();
  const order: string[] = [];
  const visit = (id: string) => {
    state.set(id, 'open');
    order.push(id);
    for (const to of out.get(id) ?? []) {
      const s = state.get(to);
      if (s === 'open') back.add(edgeKey(id, to));
      else if (!s) visit(to);
    }
    state.set(id, 'done');
  };
  for (const r of roots.length ? roots : ids.slice(0, 1)) if (!state.has(r)) visit(r);
  for (const id of ids) if (!state.has(id)) visit(id);
  // longest-path layering over the forward edges, in DFS order (a topological order of the DAG)
  const topo: string[] = [];
  const seen = new Set<string>();
  const post = (id: string) => {
    seen.add(id);
    for (const to of out.get(id) ?? []) if (!back.has(edgeKey(id, to)) && !seen.has(to)) post(to);
    topo.push(id);
  };
  for (const id of order) if (!seen.has(id)) post(id);
  topo.reverse();
  const layer = new Map<string, number>(ids.map((id) => [id, 0]));
  for (const id of topo) for (const to of out.get(id) ?? []) if (!back.has(edgeKey(id, to))) layer.set(to, Math.max(layer.get(to)!, layer.get(id)! + 1));
  const layers: string[][] = [];
  for (const id of order) (layers[layer.get(id)!] ??= []).push(id);
  const widest = Math.max(1, ...layers.map((l) => l?.length ?? 0));
  const innerW = widest * BOX_W + (widest - 1) * COL_GAP;
  const pos = new Map<string, { x: number; y: number; layer: number }>();
  layers.forEach((row, li) => {
    const rowW = row.length * BOX_W + (row.length - 1) * COL_GAP;
    row.forEach((id, i) => pos.set(id, { x: PAD + (innerW - rowW) / 2 + i * (BOX_W + COL_GAP), y: PAD + li * (BOX_H + LAYER_GAP), layer: li }));
  });
  return { pos, back, width: innerW + PAD * 2 + LOOP_ROOM, height: PAD * 2 + layers.length * (BOX_H + LAYER_GAP) - LAYER_GAP };
}

function label(node: GraphNode): string {
  return node.id === '__start__' ? 'start' : node.id === '__end__' ? 'end' : node.id;
}

export function GraphDiagram({ graph: full }: { graph: Graph }) {
  const graph = drawable(full);
  const { pos, back, width, height } = layoutGraph(graph);
  const innerRight = width - LOOP_ROOM;
  const innerLeft = PAD;
  const centre = (innerLeft + innerRight) / 2;
  const edges = graph.edges.filter((e) => pos.has(e.from) && pos.has(e.to));
  return (
    <figure className="figure">
      <svg
        viewBox={`0 0 ${width} ${height}`}
        width={width}
        height={height}
        className="graph-diagram"
        role="img"
        aria-label={`The agent's compiled graph: ${graph.nodes.length} nodes and ${graph.edges.length} edges.`}
      >
        <defs>
          <marker id="garrow" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
            <path d="M0,0 L8,4 L0,8 z" className="arrowhead" />
          </marker>
        </defs>
        <g className="edges">
          {edges.map((e, i) => {
            const a = pos.get(e.from)!;
            const b = pos.get(e.to)!;
            const isBack = back.has(edgeKey(e.from, e.to));
            let d: string;
            if (isBack) {
              const x = innerRight + 12 + (i % 3) * 14;
              d = `M${a.x + BOX_W},${a.y + BOX_H / 2} C${x},${a.y + BOX_H / 2} ${x},${b.y + BOX_H / 2} ${b.x + BOX_W + 6},${b.y + BOX_H / 2}`;
            } else if (b.layer - a.layer > 1) {
              // a long edge would cut through the boxes between: route it round the side nearer its target
              const right = b.x + BOX_W / 2 >= centre;
              const xo = right ? Math.max(a.x, b.x) + BOX_W + 22 : Math.min(a.x, b.x) - 22;
              const x1 = right ? a.x + BOX_W : a.x;
              const x2 = right ? b.x + BOX_W + 6 : b.x - 6;
              d = `M${x1},${a.y + BOX_H / 2} C${xo},${a.y + BOX_H / 2} ${xo},${b.y + BOX_H / 2} ${x2},${b.y + BOX_H / 2}`;
            } else {
              const x1 = a.x + BOX_W / 2;
              const y1 = a.y + BOX_H;
              const x2 = b.x + BOX_W / 2;
              const y2 = b.y - 6;
              const my = (y1 + y2) / 2;
              d = `M${x1},${y1} C${x1},${my} ${x2},${my} ${x2},${y2}`;
            }
            return (
              <path
                key={`${e.from}->${e.to}`}
                d={d}
                markerEnd="url(#garrow)"
                className={`edge ${e.conditional ? 'edge-conditional' : ''} ${isBack ? 'edge-back' : ''}`}
              >
                <title>{`${e.from} → ${e.to}${e.conditional ? ' (conditional)' : ''}${isBack ? ' — loops back' : ''}`}</title>
              </path>
            );
          })}
        </g>
        <g className="nodes">
          {graph.nodes.map((n) => {
            const p = pos.get(n.id);
            if (!p) return null;
            const special = n.id.startsWith('__');
            const box = (
              <g key={n.id} className={`gnode ${n.terminal ? 'gnode-terminal' : ''} ${special ? 'gnode-special' : ''}`} data-node={n.id}>
                <rect x={p.x} y={p.y} width={BOX_W} height={BOX_H} rx={special ? BOX_H / 2 : 5} />
                <text x={p.x + BOX_W / 2} y={p.y + (n.file ? 19 : 27)} textAnchor="middle" className="svg-mono">
                  {label(n)}
                </text>
                {n.file ? (
                  <text x={p.x + BOX_W / 2} y={p.y + 34} textAnchor="middle" className="svg-file">
                    {n.file.split('/').pop()}
                  </text>
                ) : null}
                <title>{n.file ? `${n.id} — implemented in ${n.file}` : n.id}</title>
              </g>
            );
            // A box links to its file for the pointer. Inside role="img" a link is hidden from assistive technology, so it
            // is kept out of the tab order too: the node table below carries the same links for keyboards and screen readers.
            return n.file ? (
              <a key={n.id} href={sourceHref(n.file)} tabIndex={-1} className="gnode-link">
                {box}
              </a>
            ) : (
              box
            );
          })}
        </g>
      </svg>
      <figcaption>
        Solid arrows always run; dashed arrows are conditional (the node chooses). A curve on the right loops back. Boxes with a double edge are terminal: the
        run ends there.
      </figcaption>
    </figure>
  );
}
