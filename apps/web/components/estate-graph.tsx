import type { Estate, Service } from '@sandscope/api/estate';
import { serviceAnchor } from '@/lib/anchors';

/**
 * The estate's dependency graph as a server-rendered SVG. The layout is
 * deterministic — one column per tier, services sorted by id within it — so the
 * same estate always draws the same picture, with no layout engine in the browser.
 */

const BOX_W = 190;
const BOX_H = 38;
const COL_GAP = 120;
const ROW_GAP = 12;
const TOP = 40;
const LEFT = 56;

interface Placed {
  readonly service: Service;
  readonly x: number;
  readonly y: number;
}

/**
 * Columns by tier; within a column, services ordered by the mean row of their
 * neighbours already placed (a barycentre sweep, two passes), ties by id — fewer
 * crossings, and still the same picture for the same estate.
 */
export function layoutEstate(estate: Estate): { placed: Map<string, Placed>; tiers: number[]; width: number; height: number } {
  const tiers = [...new Set(estate.services.map((s) => s.tier))].sort((a, b) => a - b);
  const columns = tiers.map((tier) => estate.services.filter((s) => s.tier === tier).sort((a, b) => a.id.localeCompare(b.id)));
  const neighbours = new Map<string, string[]>();
  for (const d of estate.dependencies) {
    neighbours.set(d.from, [...(neighbours.get(d.from) ?? []), d.to]);
    neighbours.set(d.to, [...(neighbours.get(d.to) ?? []), d.from]);
  }
  const row = new Map<string, number>();
  columns[0]?.forEach((s, i) => row.set(s.id, i));
  for (let pass = 0; pass < 2; pass++) {
    columns.forEach((column, c) => {
      if (c === 0 && pass === 0) return;
      const centre = (s: Service) => {
        const rows = (neighbours.get(s.id) ?? []).map((n) => row.get(n)).filter((r): r is number => r !== undefined);
        return rows.length ? rows.reduce((a, b) => a + b, 0) / rows.length : Number.POSITIVE_INFINITY;
      };
      const weighted = column.map((s) => ({ s, w: centre(s) }));
      weighted.sort((a, b) => a.w - b.w || a.s.id.localeCompare(b.s.id));
      columns[c] = weighted.map((x) => x.s);
      columns[c]!.forEach((s, i) => row.set(s.id, i));
    });
  }
  const placed = new Map<string, Placed>();
  let rows = 0;
  columns.forEach((column, col) => {
    rows = Math.max(rows, column.length);
    column.forEach((service, r) => placed.set(service.id, { service, x: LEFT + col * (BOX_W + COL_GAP), y: TOP + r * (BOX_H + ROW_GAP) }));
  });
  return { placed, tiers, width: LEFT + tiers.length * BOX_W + Math.max(0, tiers.length - 1) * COL_GAP + 16, height: TOP + rows * (BOX_H + ROW_GAP) + 8 };
}

function edgePath(a: Placed, b: Placed): string {
  const ay = a.y + BOX_H / 2;
  const by = b.y + BOX_H / 2;
  if (b.x !== a.x) {
    const forward = b.x > a.x;
    const x1 = forward ? a.x + BOX_W : a.x;
    const x2 = forward ? b.x - 6 : b.x + BOX_W + 6;
    const mid = (x1 + x2) / 2;
    return `M${x1},${ay} C${mid},${ay} ${mid},${by} ${x2},${by}`;
  }
  // same tier: an arc out to the left of the column, clear of the edges between columns
  const x = a.x;
  const bulge = 22 + Math.min(30, Math.abs(by - ay) / 5);
  return `M${x},${ay} C${x - bulge},${ay} ${x - bulge},${by} ${x - 6},${by}`;
}

export function EstateGraph({ estate }: { estate: Estate }) {
  const { placed, tiers, width, height } = layoutEstate(estate);
  const edges = estate.dependencies.filter((d) => placed.has(d.from) && placed.has(d.to));
  return (
    <figure className="figure">
      <svg
        className="estate-graph"
        viewBox={`0 0 ${width} ${height}`}
        width={width}
        height={height}
        role="img"
        aria-label={`Dependency graph: ${estate.services.length} services in ${tiers.length} tiers, ${edges.length} dependencies; arrows point from a service to what it depends on.`}
      >
        <defs>
          <marker id="arrow" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
            <path d="M0,0 L8,4 L0,8 z" className="arrowhead" />
          </marker>
        </defs>
        {tiers.map((tier, col) => (
          <text key={tier} x={LEFT + col * (BOX_W + COL_GAP)} y={22} className="svg-col-label">
            Tier {tier}
            {tier === 1 ? ' — most critical' : ''}
          </text>
        ))}
        <g className="edges">
          {edges.map((d) => (
            <path key={`${d.from}->${d.to}`} d={edgePath(placed.get(d.from)!, placed.get(d.to)!)} markerEnd="url(#arrow)" className="edge">
              <title>{`${d.from} depends on ${d.to}`}</title>
            </path>
          ))}
        </g>
        <g className="nodes">
          {[...placed.values()].map(({ service, x, y }) => (
            <a key={service.id} href={`#${serviceAnchor(service.id)}`}>
              <rect x={x} y={y} width={BOX_W} height={BOX_H} rx={4} className={`svc svc-tier-${service.tier}`} />
              <text x={x + 8} y={y + 16} className="svg-mono">
                {service.id}
              </text>
              <text x={x + 8} y={y + 31} className="svg-kind">
                {service.kind}
                {service.owner ? ` · ${service.owner}` : ''}
              </text>
              <title>{`${service.name} (${service.kind}, tier ${service.tier})${service.owner ? ` — ${service.owner}` : ''}`}</title>
            </a>
          ))}
        </g>
      </svg>
      <figcaption>
        Columns are criticality tiers. An arrow points from a service to a service it depends on; a curve on a column’s left links two services of the same
        tier. Box edges: red tier 1, amber tier 2, blue tier 3.
      </figcaption>
    </figure>
  );
}
