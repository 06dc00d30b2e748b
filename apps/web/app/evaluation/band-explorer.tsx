'use client';

// Relative imports, not `@/`: the unit tests (apps/web/tests) render this under the root vitest config, which has no alias.
import { useMemo, useState } from 'react';
import { AnswerabilityDistribution, fmtBand } from '../../components/answerability-distribution';
import type { AnswerabilityBands } from '@sandscope/api/evaluation';
import { orderedBands, rates, recorded, replay, verdictChanges } from '../../lib/bands';
import { percent } from '../../lib/format';
import type { ExplorerRow } from './report-view';

const SHOWN = 80;
/** 0.001 of probability: the report's bands print to three decimals. */
const STEP = 0.001;

const compare = (moved: number, base: number) => (moved > base ? 'worse' : moved < base ? 'better' : '');

/**
 * Move the two bands and watch each question's verdict replay (lib/bands.ts),
 * with the distribution's band lines drawn where the sliders are. Without
 * JavaScript it is a GET form the server answers with the same arithmetic; with
 * JavaScript it answers as the sliders move. Every rate it shows for moved bands
 * is IN-SAMPLE: bands chosen on the questions they are scored on flatter themselves.
 */
export function BandExplorer({
  rows,
  reportBands,
  initial,
  perCorpusBands,
}: {
  rows: readonly ExplorerRow[];
  /** The bands the report names (the shipped model's): where Reset goes. */
  reportBands: AnswerabilityBands;
  initial: AnswerabilityBands;
  /** The recorded verdicts came from bands fitted per held-out corpus, not from one pair. */
  perCorpusBands: boolean;
}) {
  const start = orderedBands(initial);
  const [below, setBelowRaw] = useState(start.insufficientBelow);
  const [above, setAboveRaw] = useState(start.sufficientAbove);
  // the band between them cannot be negative: moving one past the other pushes it along
  const setBelow = (v: number) => {
    setBelowRaw(v);
    if (v > above) setAboveRaw(v);
  };
  const setAbove = (v: number) => {
    setAboveRaw(v);
    if (v < below) setBelowRaw(v);
  };
  const bands = useMemo(() => ({ insufficientBelow: below, sufficientAbove: above }), [below, above]);
  const changes = useMemo(() => verdictChanges(rows, bands), [rows, bands]);
  const before = useMemo(() => rates(rows, recorded), [rows]);
  const after = useMemo(() => rates(rows, (r) => replay(r, bands)), [rows, bands]);
  const estimated = changes.filter((c) => c.to.estimated).length;

  return (
    <form method="get" action="/evaluation#what-if" className="explorer" id="what-if">
      <h3>What if the bands moved?</h3>
      <AnswerabilityDistribution rows={rows} bands={bands} />
      <div className="sliders">
        <label>
          <span>
            Refuse below <code data-testid="below-value">{fmtBand(below)}</code>{' '}
            <span className="muted">(report: {fmtBand(reportBands.insufficientBelow)})</span>
          </span>
          <input
            type="range"
            name="below"
            min={0}
            max={1}
            step={STEP}
            value={below}
            onChange={(e) => setBelow(Number(e.target.value))}
            aria-label="Refuse below"
          />
        </label>
        <label>
          <span>
            Answer from <code data-testid="above-value">{fmtBand(above)}</code> <span className="muted">(report: {fmtBand(reportBands.sufficientAbove)})</span>
          </span>
          <input
            type="range"
            name="above"
            min={0}
            max={1}
            step={STEP}
            value={above}
            onChange={(e) => setAbove(Number(e.target.value))}
            aria-label="Answer from"
          />
        </label>
        <div className="explorer-actions">
          <button type="submit" className="button">
            Show changes
          </button>
          {/* biome-ignore lint/a11y/useValidAnchor: a real link without JavaScript (reloading resets the bands); the click only saves the reload. */}
          <a
            href="/evaluation#what-if"
            className="button"
            onClick={(e) => {
              e.preventDefault();
              setBelowRaw(Math.min(reportBands.insufficientBelow, reportBands.sufficientAbove));
              setAboveRaw(Math.max(reportBands.insufficientBelow, reportBands.sufficientAbove));
            }}
          >
            Reset
          </a>
        </div>
      </div>
      <p className="notice notice-warn" data-testid="in-sample">
        <b>In-sample.</b> The rates under “at these bands” replay the same questions the bands would be chosen on, so they flatter any move: an operating point
        chosen on the data it is scored against is a memory, not a measurement. The recorded column is the held-out measurement.
      </p>
      <table className="rates">
        <thead>
          <tr>
            <th>rate</th>
            <th className="num">recorded (held out)</th>
            <th className="num">at these bands (in-sample)</th>
          </tr>
        </thead>
        <tbody>
          <tr data-rate="falseAnswerRate">
            <td>false answers</td>
            <td className="num">{percent(before.falseAnswerRate)}</td>
            <td className={`num ${compare(after.falseAnswerRate, before.falseAnswerRate)}`}>{percent(after.falseAnswerRate)}</td>
          </tr>
          <tr data-rate="falseRefusalRate">
            <td>false refusals</td>
            <td className="num">{percent(before.falseRefusalRate)}</td>
            <td className={`num ${compare(after.falseRefusalRate, before.falseRefusalRate)}`}>{percent(after.falseRefusalRate)}</td>
          </tr>
          <tr data-rate="deferralRate">
            <td>deferred to adjudication</td>
            <td className="num">{percent(before.deferralRate)}</td>
            <td className={`num ${compare(after.deferralRate, before.deferralRate)}`}>{percent(after.deferralRate)}</td>
          </tr>
        </tbody>
      </table>
      {perCorpusBands ? (
        <p className="muted">
          The recorded verdicts come from bands fitted separately for each held-out corpus; here one pair applies to every question, so even at the report’s
          bands some verdicts differ from the recorded ones.
        </p>
      ) : null}
      <p aria-live="polite" data-testid="change-count">
        <b>{changes.length}</b> {changes.length === 1 ? 'question changes' : 'questions change'} band or verdict from the recorded run.
      </p>
      {estimated > 0 ? (
        <p className="muted">
          ≈ {estimated} of these verdicts are estimates: they rest on a passage check the report does not record for that question (whether its best passage
          passes, or — for one it refused outright — whether adjudication would have let it through).
        </p>
      ) : null}
      {changes.length > 0 ? (
        <div className="table-scroll">
          <table className="changes">
            <thead>
              <tr>
                <th>question</th>
                <th>corpus</th>
                <th>label</th>
                <th className="num">answerability</th>
                <th>band</th>
                <th>verdict</th>
                <th>effect</th>
              </tr>
            </thead>
            <tbody>
              {changes.slice(0, SHOWN).map((c) => (
                <tr key={`${c.row.corpus}\u0000${c.row.id}`} data-question={c.row.id}>
                  <td className="question-cell">{c.row.question}</td>
                  <td className="nowrap">{c.row.corpus}</td>
                  <td>{c.row.label}</td>
                  <td className="num">
                    <code>{c.row.answerability === null ? '—' : fmtBand(c.row.answerability)}</code>
                  </td>
                  <td className="nowrap">
                    {c.from.band} → <b>{c.to.band}</b>
                  </td>
                  <td className="nowrap">
                    {c.from.verdict} → <b className={`tag tag-${c.to.verdict}`}>{c.to.verdict}</b>
                    {c.to.estimated ? <span title="an estimate: rests on a passage check the report does not record"> ≈</span> : null}
                  </td>
                  <td className={`nowrap ${c.effect?.startsWith('new') ? 'worse' : c.effect ? 'better' : ''}`}>{c.effect ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {changes.length > SHOWN ? <p className="muted">…and {changes.length - SHOWN} more.</p> : null}
        </div>
      ) : null}
    </form>
  );
}
