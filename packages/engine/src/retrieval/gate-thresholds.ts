/**
 * The one place the gate's tuned constants live.
 *
 * The defaults below are a STARTING POINT, read off the first build of our corpus
 * by eye, not a measurement. The shipped values are fitted by `sandscope calibrate`
 * (5-fold cross-validation first, then a fit on the whole generated set) and
 * written to `<corpus>/thresholds.json`, which `loadThresholds` prefers. The
 * evaluation never scores a fold with values fitted on it (seed, Applied ML: an
 * operating point chosen on the data it is scored on is a memory, not a measurement).
 */
export interface GateThresholds {
  /** Below this product score: insufficient → refuse. */
  readonly insufficientBelow: number;
  /** At or above this product score: sufficient → answer. Between the two: ambiguous → adjudicate. */
  readonly sufficientAbove: number;
  /** Share of the question's content terms present in the retrieved passages; below it, refuse before scoring. */
  readonly minTermCoverage: number;
  /** Adjudication: the IDF-weighted share of the question's predicate one passage must carry on its own. */
  readonly minConcentration: number;
  /**
   * An entity named by at most this many passages identifies the topic on its
   * own: a passage naming it carries the question even when the predicate is
   * generic ("how do I respond to OrdersDbPoolSaturated?"). 0 turns this off.
   */
  readonly identifyingEntityMaxPassages: number;
}

export const DEFAULT_THRESHOLDS: GateThresholds = {
  insufficientBelow: 1.0,
  sufficientAbove: 8.0,
  minTermCoverage: 0.3,
  minConcentration: 0.6,
  identifyingEntityMaxPassages: 0,
};

/** Where a thresholds file came from, for the record. */
export interface ThresholdsFile extends GateThresholds {
  readonly fittedOn?: string;
  readonly fittedAt?: string;
  readonly questions?: number;
  readonly heldOut?: Record<string, number>;
}

/** Validate a thresholds file's content; returns a message naming the bad field. */
export function parseThresholds(raw: unknown): { ok: true; thresholds: ThresholdsFile } | { ok: false; message: string } {
  if (!raw || typeof raw !== 'object') return { ok: false, message: 'thresholds file must hold a JSON object' };
  // A file written before identifyingEntityMaxPassages existed keeps that check off.
  const r: Record<string, unknown> = { identifyingEntityMaxPassages: 0, ...(raw as Record<string, unknown>) };
  for (const key of ['insufficientBelow', 'sufficientAbove', 'minTermCoverage', 'minConcentration', 'identifyingEntityMaxPassages'] as const) {
    if (typeof r[key] !== 'number' || !Number.isFinite(r[key])) return { ok: false, message: `thresholds file: "${key}" must be a number` };
  }
  if ((r.insufficientBelow as number) > (r.sufficientAbove as number)) {
    return { ok: false, message: 'thresholds file: insufficientBelow must not exceed sufficientAbove' };
  }
  return { ok: true, thresholds: r as unknown as ThresholdsFile };
}
