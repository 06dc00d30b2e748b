import type { EvalQuestionRow, GateThresholds } from '@/lib/agent-types';
import { scoreScale } from '@/lib/bands';
import { score as fmtScore } from '@/lib/format';

export const FIGURE = { width: 760, height: 320, left: 16, right: 16, top: 44, bottom: 40 } as const;
const BINS = 48;

/** The x domain for the figure: room above the top threshold without letting one outlier squash the rest. */
export function scoreDomain(rows: readonly EvalQuestionRow[], t: GateThresholds): number {
  const scores = rows.map((r) => r.score).filter((s): s is number => s !== null && Number.isFinite(s)).sort((a, b) => a - b);
  const p99 = scores.length ? scores[Math.min(scores.length - 1, Math.floor(scores.length * 0.99))]! : 1;
  return Math.max(t.sufficientAbove * 1.5, p99, 2);
}

/**
 * Score distributions, answerable above the axis and unanswerable below, with
 * both thresholds drawn. Server-rendered: the figure is there without JavaScript.
 */
export function ScoreDistribution({ rows, thresholds }: { rows: readonly EvalQuestionRow[]; thresholds: GateThresholds }) {
  const { width, height, left, right, top, bottom } = FIGURE;
  const plotW = width - left - right;
  const mid = top + (height - top - bottom) / 2;
  const half = (height - top - bottom) / 2 - 4;
  const scale = scoreScale(scoreDomain(rows, thresholds));
  const X = (s: number) => left + scale.x(s) * plotW;
  const bins = (label: string) => {
    const counts = new Array<number>(BINS).fill(0);
    for (const r of rows) if (r.label === label && r.score !== null && Number.isFinite(r.score)) counts[Math.min(BINS - 1, Math.floor(scale.x(r.score) * BINS))]!++;
    return counts;
  };
  const a = bins('answerable');
  const u = bins('unanswerable');
  const peak = Math.max(1, ...a, ...u);
  const unscored = rows.filter((r) => r.score === null).length;
  const ticks = [0, 0.5, 1, 2, 5, 10, 20, 50, 100, 200].filter((t) => t <= scale.max);
  const binW = plotW / BINS;
  // labels sit on two rows above the plot so they never collide; each reads away from the nearer edge
  const line = (value: number, label: string, cls: string, row: number) => {
    const x = X(value);
    const anchor = x < left + plotW * 0.25 ? 'start' : 'end';
    return (
      <g className={cls}>
        <line x1={x} x2={x} y1={row === 0 ? 8 : 24} y2={height - bottom + 4} />
        <text x={x + (anchor === 'start' ? 5 : -5)} y={row === 0 ? 16 : 32} textAnchor={anchor}>
          {label} {fmtScore(value)}
        </text>
      </g>
    );
  };
  return (
    <figure className="figure">
      <svg
        viewBox={`0 0 ${width} ${height}`}
        className="distribution"
        role="img"
        aria-label={`Score distribution of ${rows.length} questions: answerable above the axis, unanswerable below; refuse below ${fmtScore(thresholds.insufficientBelow)}, answer at or above ${fmtScore(thresholds.sufficientAbove)}.`}
      >
        <rect x={left} y={top} width={X(thresholds.insufficientBelow) - left} height={height - top - bottom} className="zone zone-refuse" />
        <rect x={X(thresholds.sufficientAbove)} y={top} width={left + plotW - X(thresholds.sufficientAbove)} height={height - top - bottom} className="zone zone-answer" />
        {a.map((n, i) =>
          n > 0 ? <rect key={`a${i}`} x={left + i * binW + 0.5} width={binW - 1} y={mid - (n / peak) * half} height={(n / peak) * half} className="bar bar-answerable"><title>{`${n} answerable`}</title></rect> : null,
        )}
        {u.map((n, i) =>
          n > 0 ? <rect key={`u${i}`} x={left + i * binW + 0.5} width={binW - 1} y={mid} height={(n / peak) * half} className="bar bar-unanswerable"><title>{`${n} unanswerable`}</title></rect> : null,
        )}
        <line x1={left} x2={left + plotW} y1={mid} y2={mid} className="axis" />
        <text x={left + plotW - 4} y={top + 14} textAnchor="end" className="svg-label label-answerable">▲ answerable</text>
        <text x={left + plotW - 4} y={height - bottom - 6} textAnchor="end" className="svg-label label-unanswerable">▼ unanswerable</text>
        {ticks.map((t) => (
          <g key={t} className="tick">
            <line x1={X(t)} x2={X(t)} y1={height - bottom} y2={height - bottom + 5} />
            <text x={X(t)} y={height - bottom + 18} textAnchor="middle">{t}</text>
          </g>
        ))}
        <text x={left + plotW / 2} y={height - 6} textAnchor="middle" className="svg-label">score (dense × BM25, log scale)</text>
        {line(thresholds.insufficientBelow, 'refuse below', 'threshold threshold-low', 0)}
        {line(thresholds.sufficientAbove, 'answer from', 'threshold threshold-high', 1)}
      </svg>
      <figcaption>
        Each bar counts questions in a score bin: answerable up, unanswerable down. Left of the red line the gate refuses; right of the green line it
        answers; between them is the ambiguous band, where adjudication decides.
        {unscored > 0 ? ` ${unscored} questions had no score (degraded retrieval) and are not drawn.` : ''}
      </figcaption>
    </figure>
  );
}
