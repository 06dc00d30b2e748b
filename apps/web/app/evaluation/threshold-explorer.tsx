'use client';

import { useMemo, useState } from 'react';
import type { EvalQuestionRow, GateThresholds } from '@/lib/agent-types';
import { bandChanges, inSampleRates, replay } from '@/lib/bands';
import { percent, score as fmtScore } from '@/lib/format';

const SHOWN = 80;

/**
 * Move a threshold, see which questions change band. Without JavaScript it is a
 * GET form the server answers with the same arithmetic; with JavaScript it
 * answers as the slider moves. Rates here are IN-SAMPLE — a memory of this set.
 */
export function ThresholdExplorer({
  rows,
  shipped,
  max,
  initialBelow,
  initialAbove,
}: {
  rows: readonly EvalQuestionRow[];
  shipped: GateThresholds;
  max: number;
  initialBelow: number;
  initialAbove: number;
}) {
  const [below, setBelowRaw] = useState(Math.min(initialBelow, initialAbove));
  const [above, setAboveRaw] = useState(Math.max(initialBelow, initialAbove));
  // the band between them cannot be negative: moving one past the other pushes it along
  const setBelow = (v: number) => {
    setBelowRaw(v);
    if (v > above) setAboveRaw(v);
  };
  const setAbove = (v: number) => {
    setAboveRaw(v);
    if (v < below) setBelowRaw(v);
  };
  const proposed = useMemo(() => ({ insufficientBelow: below, sufficientAbove: above }), [below, above]);
  const changes = useMemo(() => bandChanges(rows, shipped, proposed), [rows, shipped, proposed]);
  const before = useMemo(() => inSampleRates(rows, (r) => r), [rows]);
  const after = useMemo(() => inSampleRates(rows, (r) => replay(r, shipped, proposed)), [rows, shipped, proposed]);
  const estimated = changes.filter((c) => c.to.estimated).length;
  const step = max > 20 ? 0.1 : 0.05;

  return (
    <form method="get" action="/evaluation#what-if" className="explorer" id="what-if">
      <h3>What if the thresholds moved?</h3>
      <div className="sliders">
        <label>
          <span>
            Refuse below <code data-testid="below-value">{fmtScore(below)}</code> <span className="muted">(ships at {fmtScore(shipped.insufficientBelow)})</span>
          </span>
          <input type="range" name="below" min={0} max={max} step={step} value={below} onChange={(e) => setBelow(Number(e.target.value))} aria-label="Refuse below" />
        </label>
        <label>
          <span>
            Answer from <code data-testid="above-value">{fmtScore(above)}</code> <span className="muted">(ships at {fmtScore(shipped.sufficientAbove)})</span>
          </span>
          <input type="range" name="above" min={0} max={max} step={step} value={above} onChange={(e) => setAbove(Number(e.target.value))} aria-label="Answer from" />
        </label>
        <div className="explorer-actions">
          <button type="submit" className="button">
            Show changes
          </button>
          <a href="/evaluation#what-if" className="button" onClick={(e) => { e.preventDefault(); setBelowRaw(shipped.insufficientBelow); setAboveRaw(shipped.sufficientAbove); }}>
            Reset
          </a>
        </div>
      </div>
      <table className="rates">
        <thead>
          <tr>
            <th>in-sample, this set</th>
            <th className="num">shipped</th>
            <th className="num">moved</th>
          </tr>
        </thead>
        <tbody>
          <tr>
            <td>false answers</td>
            <td className="num">{percent(before.falseAnswerRate)}</td>
            <td className={`num ${after.falseAnswerRate > before.falseAnswerRate ? 'worse' : after.falseAnswerRate < before.falseAnswerRate ? 'better' : ''}`}>{percent(after.falseAnswerRate)}</td>
          </tr>
          <tr>
            <td>false refusals</td>
            <td className="num">{percent(before.falseRefusalRate)}</td>
            <td className={`num ${after.falseRefusalRate > before.falseRefusalRate ? 'worse' : after.falseRefusalRate < before.falseRefusalRate ? 'better' : ''}`}>{percent(after.falseRefusalRate)}</td>
          </tr>
          <tr>
            <td>deferred to adjudication</td>
            <td className="num">{percent(before.deferralRate)}</td>
            <td className="num">{percent(after.deferralRate)}</td>
          </tr>
        </tbody>
      </table>
      <p className="muted">
        Scored on the same questions the thresholds would be chosen on, so these numbers flatter any move: an operating point chosen on the data it is
        scored against is a memory, not a measurement.
      </p>
      <p aria-live="polite" data-testid="change-count">
        <b>{changes.length}</b> {changes.length === 1 ? 'question changes' : 'questions change'} band or verdict.
      </p>
      {estimated > 0 ? (
        <p className="muted">
          ≈ {estimated} moved into the ambiguous band, where adjudication decides; their verdicts are estimated from the recorded carrier concentration.
        </p>
      ) : null}
      {changes.length > 0 ? (
        <div className="table-scroll">
          <table className="changes">
            <thead>
              <tr>
                <th>question</th>
                <th>label</th>
                <th className="num">score</th>
                <th>band</th>
                <th>verdict</th>
                <th>effect</th>
              </tr>
            </thead>
            <tbody>
              {changes.slice(0, SHOWN).map((c) => (
                <tr key={c.row.id} data-question={c.row.id}>
                  <td>{c.row.question}</td>
                  <td>{c.row.label}</td>
                  <td className="num">
                    <code>{fmtScore(c.row.score)}</code>
                  </td>
                  <td className="nowrap">
                    {c.from.band} → <b>{c.to.band}</b>
                  </td>
                  <td className="nowrap">
                    {c.from.verdict} → <b className={`tag tag-${c.to.verdict}`}>{c.to.verdict}</b>
                    {c.to.estimated ? <span title="adjudication decides; estimated from the recorded carrier concentration"> ≈</span> : null}
                  </td>
                  <td className={c.effect?.startsWith('new') ? 'worse' : c.effect ? 'better' : ''}>{c.effect ?? ''}</td>
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
