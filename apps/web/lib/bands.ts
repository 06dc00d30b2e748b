import type { Band, EvalQuestionRow, GateThresholds, Verdict } from './agent-types';

/*
 * The threshold explorer's arithmetic: what band a question would land in if the
 * two SCORE thresholds moved, everything else held as recorded.
 *
 * Bands replay exactly from the recorded score. Verdicts replay exactly too,
 * except for a question that moves INTO the ambiguous band: adjudication decides
 * those, on features the evaluation rows carry only in part (docs/API.md lists
 * `carrierConcentration`; the engine's newer guards add more). Such a verdict is
 * estimated from what the row carries, and marked `estimated`.
 */

export interface Outcome {
  readonly band: Band;
  readonly verdict: Verdict;
  /** The verdict is adjudication's, estimated from the row rather than recorded. */
  readonly estimated: boolean;
}

type Row = EvalQuestionRow & Record<string, unknown>;
type Thresholds = GateThresholds & Record<string, unknown>;

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** Would the sufficient band's guards let this question through (they do not depend on the score thresholds)? */
function passesGuards(q: Row, t: Thresholds): boolean {
  if (q.downgrade) return false;
  const conc = num(q.bestConcentration);
  const rarest = num(q.bestRarestEntity);
  const maxPassages = num(t.identifyingEntityMaxPassages);
  if (conc !== undefined && rarest !== undefined && maxPassages !== undefined) return conc >= t.minConcentration || rarest <= maxPassages;
  if (conc !== undefined) return conc >= t.minConcentration;
  return true;
}

/** Adjudication's likely decision from the row: one passage carries the question. */
function carried(q: Row, t: Thresholds): boolean {
  const rarest = num(q.carrierRarestEntity);
  const maxPassages = num(t.identifyingEntityMaxPassages);
  return q.carrierConcentration >= t.minConcentration || (rarest !== undefined && maxPassages !== undefined && rarest >= 0 && rarest <= maxPassages);
}

export function replay(row: EvalQuestionRow, shipped: GateThresholds, proposed: Pick<GateThresholds, 'insufficientBelow' | 'sufficientAbove'>): Outcome {
  const q = row as Row;
  const t = shipped as Thresholds;
  const recorded: Outcome = { band: q.band, verdict: q.verdict, estimated: false };
  const s = q.score;
  // refused before scoring (too few terms, no evidence) or unscored (degraded): the score thresholds do not apply
  if (s === null || !Number.isFinite(s)) return recorded;
  if (q.band === 'insufficient' && (q.coverage < t.minTermCoverage || s >= t.insufficientBelow)) return recorded;
  if (s < proposed.insufficientBelow) return { band: 'insufficient', verdict: 'refused', estimated: false };
  const eligible = q.band === 'sufficient' ? true : q.band === 'ambiguous' && s >= t.sufficientAbove ? false : passesGuards(q, t);
  if (s >= proposed.sufficientAbove && eligible) return { band: 'sufficient', verdict: 'answered', estimated: false };
  if (q.band === 'ambiguous') return recorded;
  return { band: 'ambiguous', verdict: carried(q, t) ? 'partial' : 'refused', estimated: true };
}

export interface BandChange {
  readonly row: EvalQuestionRow;
  readonly from: Outcome;
  readonly to: Outcome;
  /** The move makes this question a mistake it was not before (or fixes one). */
  readonly effect: 'new false answer' | 'new false refusal' | 'fixes a false answer' | 'fixes a false refusal' | null;
}

const mistake = (label: string, verdict: Verdict) => (label === 'unanswerable' && verdict !== 'refused' ? 'false answer' : label === 'answerable' && verdict === 'refused' ? 'false refusal' : null);

export function bandChanges(rows: readonly EvalQuestionRow[], shipped: GateThresholds, proposed: Pick<GateThresholds, 'insufficientBelow' | 'sufficientAbove'>): BandChange[] {
  const out: BandChange[] = [];
  for (const row of rows) {
    const from: Outcome = { band: row.band, verdict: row.verdict, estimated: false };
    const to = replay(row, shipped, proposed);
    if (from.band === to.band && from.verdict === to.verdict) continue;
    const before = mistake(row.label, from.verdict);
    const after = mistake(row.label, to.verdict);
    const effect = after && !before ? (`new ${after}` as const) : before && !after ? (`fixes a ${before}` as const) : null;
    out.push({ row, from, to, effect });
  }
  return out;
}

/** In-sample rates: a memory of this set, never a measurement (seed, Applied ML). */
export function inSampleRates(rows: readonly EvalQuestionRow[], outcome: (row: EvalQuestionRow) => Pick<Outcome, 'band' | 'verdict'>): { falseAnswerRate: number; falseRefusalRate: number; deferralRate: number } {
  let ans = 0, unans = 0, falseAnswers = 0, falseRefusals = 0, ambiguous = 0;
  for (const row of rows) {
    const { band, verdict } = outcome(row);
    if (band === 'ambiguous') ambiguous++;
    if (row.label === 'answerable') {
      ans++;
      if (verdict === 'refused') falseRefusals++;
    } else if (row.label === 'unanswerable') {
      unans++;
      if (verdict !== 'refused') falseAnswers++;
    }
  }
  const r = (a: number, b: number) => (b === 0 ? 0 : a / b);
  return { falseAnswerRate: r(falseAnswers, unans), falseRefusalRate: r(falseRefusals, ans), deferralRate: r(ambiguous, rows.length) };
}

/** The figure's x scale: log(1 + score), so 0.7 and 10 both have room. */
export function scoreScale(max: number): { x: (score: number) => number; max: number } {
  const top = Math.log10(1 + Math.max(1, max));
  return { x: (s: number) => Math.min(1, Math.max(0, Math.log10(1 + Math.max(0, s)) / top)), max };
}
