import type { Band, Verdict } from '@sandscope/api';
import type { AnswerabilityBands } from '@sandscope/api/evaluation';

/*
 * The band explorer's arithmetic: what each question's verdict would be if the
 * two bands on the answerability probability moved, everything else held as
 * recorded. Pure functions, shared by the server render (JavaScript off, a GET
 * form) and the slider (JavaScript on), so both say the same thing.
 *
 * The engine's rule (packages/engine/src/answerability/decide.ts, `bandVerdict`):
 *   answerability < insufficientBelow            → insufficient, refused
 *   ≥ sufficientAbove and the best passage passes → sufficient, answered
 *   otherwise                                    → ambiguous, partial if some passage passes (adjudication), else refused
 * A row carries `answerability`, `adjudicable` (some passage passes) and `bestPasses`,
 * and is then replayed exactly. An older report without `bestPasses` is replayed from
 * what its recorded band says, and a verdict resting on something it does not record
 * is marked `estimated`.
 */

/** What the replay needs of a row; `rowForReplay` in the evaluation page builds it from the wire row. */
export interface ReplayRow {
  readonly label: string;
  readonly band: Band;
  readonly verdict: Verdict;
  /** null when degraded or nothing was retrieved: the bands never applied, the recorded verdict stands. */
  readonly answerability: number | null;
  readonly adjudicable: boolean;
  /** Whether the row's best passage fails no check. A report that records it is replayed exactly. */
  readonly bestPasses?: boolean;
  /** The bands the row was scored with (its held-out corpus's), when the report says; sharpens the replay. */
  readonly recordedBands?: AnswerabilityBands | null;
}

export interface Outcome {
  readonly band: Band;
  readonly verdict: Verdict;
  /** The verdict depends on a check the report does not record for this row (see `replay`). */
  readonly estimated: boolean;
}

/** Bands as a pair that cannot cross: a slider dragged past the other pushes the band between them to nothing, never negative. */
export function orderedBands(b: AnswerabilityBands): AnswerabilityBands {
  return b.insufficientBelow <= b.sufficientAbove ? b : { insufficientBelow: b.sufficientAbove, sufficientAbove: b.insufficientBelow };
}

/** A probability in [0, 1], or null for anything else (a query string, an older report's score threshold). */
export function probability(value: unknown): number | null {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 && n <= 1 ? n : null;
}

export const recorded = (row: Pick<ReplayRow, 'band' | 'verdict'>): Outcome => ({ band: row.band, verdict: row.verdict, estimated: false });

/**
 * The row's outcome under `bands`.
 *
 * - answerability null → as recorded.
 * - below `insufficientBelow` → insufficient, refused (exact).
 * - between the bands → ambiguous; partial if `adjudicable`, else refused.
 * - at or above `sufficientAbove` → answered when `adjudicable`; else ambiguous with
 *   the recorded partial/refused. One exception, known from the record: a row recorded
 *   AMBIGUOUS although its answerability was already at or above its own `sufficientAbove`
 *   got there because its best passage failed the checks, so no band makes it answered —
 *   it stays ambiguous with its recorded verdict.
 *
 * Estimated (marked ≈): a row recorded insufficient that moves up (the eval records such
 * rows as adjudicable without running adjudication on them), and an adjudicable row
 * recorded ambiguous that moves to answered without the exception above ruling it out
 * (its best passage's checks are not recorded).
 */
export function replay(row: ReplayRow, bands: AnswerabilityBands): Outcome {
  const p = row.answerability;
  if (p === null || !Number.isFinite(p)) return recorded(row);
  const { insufficientBelow, sufficientAbove } = orderedBands(bands);
  if (p < insufficientBelow) return { band: 'insufficient', verdict: 'refused', estimated: false };
  if (row.bestPasses !== undefined) {
    // The report records both checks: the engine's rule, exactly.
    if (p >= sufficientAbove && row.bestPasses) return { band: 'sufficient', verdict: 'answered', estimated: false };
    return { band: 'ambiguous', verdict: row.adjudicable ? 'partial' : 'refused', estimated: false };
  }
  const wasInsufficient = row.band === 'insufficient';
  if (p >= sufficientAbove) {
    const bestFailed = row.band === 'ambiguous' && row.recordedBands != null && p >= row.recordedBands.sufficientAbove;
    if (bestFailed) return { band: 'ambiguous', verdict: row.verdict === 'partial' ? 'partial' : 'refused', estimated: false };
    if (row.adjudicable) return { band: 'sufficient', verdict: 'answered', estimated: row.band !== 'sufficient' };
    return { band: 'ambiguous', verdict: row.verdict === 'partial' ? 'partial' : 'refused', estimated: wasInsufficient };
  }
  return { band: 'ambiguous', verdict: row.adjudicable ? 'partial' : 'refused', estimated: wasInsufficient };
}

/** Answered or partial on an unanswerable question, or refused on an answerable one. */
export function mistakeOf(label: string, verdict: Verdict): 'false answer' | 'false refusal' | null {
  if (label === 'unanswerable' && verdict !== 'refused') return 'false answer';
  if (label === 'answerable' && verdict === 'refused') return 'false refusal';
  return null;
}

export interface VerdictChange<R extends ReplayRow = ReplayRow> {
  readonly row: R;
  readonly from: Outcome;
  readonly to: Outcome;
  /** The move makes this question a mistake it was not before (or fixes one). */
  readonly effect: 'new false answer' | 'new false refusal' | 'fixes a false answer' | 'fixes a false refusal' | null;
}

/** Every row whose band or verdict under `bands` differs from what was recorded. */
export function verdictChanges<R extends ReplayRow>(rows: readonly R[], bands: AnswerabilityBands): VerdictChange<R>[] {
  const out: VerdictChange<R>[] = [];
  for (const row of rows) {
    const from = recorded(row);
    const to = replay(row, bands);
    if (from.band === to.band && from.verdict === to.verdict) continue;
    const before = mistakeOf(row.label, from.verdict);
    const after = mistakeOf(row.label, to.verdict);
    const effect = after && !before ? (`new ${after}` as const) : before && !after ? (`fixes a ${before}` as const) : null;
    out.push({ row, from, to, effect });
  }
  return out;
}

export interface Rates {
  readonly falseAnswerRate: number;
  readonly falseRefusalRate: number;
  readonly deferralRate: number;
  readonly answerable: number;
  readonly unanswerable: number;
  readonly n: number;
}

/**
 * The three decision rates over rows under an outcome — the same arithmetic as
 * packages/eval's `computeMetrics`. Under `replay` these are IN-SAMPLE: bands
 * chosen on the very questions they are scored on are a memory, not a measurement.
 */
export function rates<R extends Pick<ReplayRow, 'label'>>(rows: readonly R[], outcome: (row: R) => Pick<Outcome, 'band' | 'verdict'>): Rates {
  let answerable = 0,
    unanswerable = 0,
    falseAnswers = 0,
    falseRefusals = 0,
    ambiguous = 0;
  for (const row of rows) {
    const { band, verdict } = outcome(row);
    if (band === 'ambiguous') ambiguous++;
    if (row.label === 'answerable') {
      answerable++;
      if (verdict === 'refused') falseRefusals++;
    } else if (row.label === 'unanswerable') {
      unanswerable++;
      if (verdict !== 'refused') falseAnswers++;
    }
  }
  const r = (a: number, b: number) => (b === 0 ? 0 : a / b);
  return {
    falseAnswerRate: r(falseAnswers, unanswerable),
    falseRefusalRate: r(falseRefusals, answerable),
    deferralRate: r(ambiguous, rows.length),
    answerable,
    unanswerable,
    n: rows.length,
  };
}

/** Rates with every row replayed under `bands` (in-sample). */
export function replayedRates(rows: readonly ReplayRow[], bands: AnswerabilityBands): Rates {
  return rates(rows, (row) => replay(row, bands));
}
