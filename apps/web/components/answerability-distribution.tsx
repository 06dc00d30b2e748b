// Relative imports, not `@/`: the unit tests (apps/web/tests) render this under the root vitest config, which has no alias.
import type { AnswerabilityBands } from '@sandscope/api/evaluation';
import { orderedBands } from '../lib/bands';

export const FIGURE = { width: 760, height: 320, left: 16, right: 16, top: 44, bottom: 40 } as const;
/** 0.02 wide: fine enough to see where the two labels separate, coarse enough that 500 questions still make bars. */
const BINS = 50;
const TICKS = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1];

/** A band as the page writes it: three decimals of a probability. */
export const fmtBand = (p: number) => p.toFixed(3);

/** What the figure needs of a question. */
export interface DistributionRow {
  readonly label: string;
  readonly answerability: number | null;
}

/** Counts per bin of [0, 1]; a probability of exactly 1 falls in the last bin. */
export function binsOf(rows: readonly DistributionRow[], label: string): number[] {
  const counts = new Array<number>(BINS).fill(0);
  for (const r of rows) {
    if (r.label !== label || r.answerability === null || !Number.isFinite(r.answerability)) continue;
    counts[Math.min(BINS - 1, Math.max(0, Math.floor(r.answerability * BINS)))]!++;
  }
  return counts;
}

/**
 * Answerable questions above the axis, unanswerable below, by the answerability
 * model's probability on a LINEAR 0..1 axis (it is a probability; the old log
 * axis was for the unbounded product score), with both band lines drawn where
 * `bands` says — the band explorer passes its sliders' positions, so the lines
 * move with them. Server-rendered: the figure is there without JavaScript.
 */
export function AnswerabilityDistribution({ rows, bands }: { rows: readonly DistributionRow[]; bands: AnswerabilityBands }) {
  const { width, height, left, right, top, bottom } = FIGURE;
  const { insufficientBelow, sufficientAbove } = orderedBands(bands);
  const plotW = width - left - right;
  const mid = top + (height - top - bottom) / 2;
  const half = (height - top - bottom) / 2 - 4;
  // biome-ignore lint/correctness/noComponentHookFactories: X is the chart's scale, a plain function, not a component.
  const X = (p: number) => left + Math.min(1, Math.max(0, p)) * plotW;
  const a = binsOf(rows, 'answerable');
  const u = binsOf(rows, 'unanswerable');
  const peak = Math.max(1, ...a, ...u);
  const unscored = rows.filter((r) => r.answerability === null).length;
  const binW = plotW / BINS;
  // labels sit on two rows above the plot so they never collide, even when the bands coincide; each reads away from the nearer edge
  const line = (value: number, label: string, cls: string, row: number) => {
    const x = X(value);
    const anchor = x < left + plotW * 0.25 ? 'start' : 'end';
    return (
      <g className={cls} data-value={fmtBand(value)}>
        <line x1={x} x2={x} y1={row === 0 ? 8 : 24} y2={height - bottom + 4} />
        <text x={x + (anchor === 'start' ? 5 : -5)} y={row === 0 ? 16 : 32} textAnchor={anchor}>
          {label} {fmtBand(value)}
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
        aria-label={`Answerability of ${rows.length - unscored} questions: answerable above the axis, unanswerable below; refuse below ${fmtBand(insufficientBelow)}, answer at or above ${fmtBand(sufficientAbove)}.`}
      >
        <rect x={left} y={top} width={X(insufficientBelow) - left} height={height - top - bottom} className="zone zone-refuse" />
        <rect x={X(sufficientAbove)} y={top} width={left + plotW - X(sufficientAbove)} height={height - top - bottom} className="zone zone-answer" />
        {a.map((n, i) =>
          n > 0 ? (
            <rect
              key={`a${i}`}
              x={left + i * binW + 0.5}
              width={binW - 1}
              y={mid - (n / peak) * half}
              height={(n / peak) * half}
              className="bar bar-answerable"
            >
              <title>{`${n} answerable, answerability ${(i / BINS).toFixed(2)}–${((i + 1) / BINS).toFixed(2)}`}</title>
            </rect>
          ) : null,
        )}
        {u.map((n, i) =>
          n > 0 ? (
            <rect key={`u${i}`} x={left + i * binW + 0.5} width={binW - 1} y={mid} height={(n / peak) * half} className="bar bar-unanswerable">
              <title>{`${n} unanswerable, answerability ${(i / BINS).toFixed(2)}–${((i + 1) / BINS).toFixed(2)}`}</title>
            </rect>
          ) : null,
        )}
        <line x1={left} x2={left + plotW} y1={mid} y2={mid} className="axis" />
        <text x={left + 4} y={top + 14} textAnchor="start" className="svg-label label-answerable">
          ▲ answerable
        </text>
        <text x={left + 4} y={height - bottom - 6} textAnchor="start" className="svg-label label-unanswerable">
          ▼ unanswerable
        </text>
        {TICKS.map((t) => (
          <g key={t} className="tick">
            <line x1={X(t)} x2={X(t)} y1={height - bottom} y2={height - bottom + 5} />
            <text x={X(t)} y={height - bottom + 18} textAnchor="middle">
              {t === 0 || t === 1 ? String(t) : t.toFixed(1)}
            </text>
          </g>
        ))}
        <text x={left + plotW / 2} y={height - 6} textAnchor="middle" className="svg-label">
          answerability (the model’s probability that the library answers the question)
        </text>
        {line(insufficientBelow, 'refuse below', 'threshold threshold-low', 0)}
        {line(sufficientAbove, 'answer from', 'threshold threshold-high', 1)}
      </svg>
      <figcaption>
        Each bar counts questions in an answerability bin of 0.02: answerable up, unanswerable down. Left of the red line the gate refuses; from the green line
        on it answers
        {/* S-238: "so nothing is deferred" stood beside a table deferring 0.2%: a question rated from the line on whose
            closest passage fails a check (a name it never gives, no value for what was asked) is adjudicated too. */}
        {insufficientBelow === sufficientAbove
          ? ' (here the two lines coincide: there is no ambiguous band, and only a question rated from the line whose closest passage fails a check is deferred to adjudication)'
          : '; between them is the ambiguous band, where adjudication decides, as it does for a question rated from the green line whose closest passage fails a check'}
        .
        {unscored > 0
          ? ` ${unscored} question${unscored === 1 ? '' : 's'} had no answerability (degraded retrieval or nothing found) and ${unscored === 1 ? 'is' : 'are'} not drawn.`
          : ''}
      </figcaption>
    </figure>
  );
}
