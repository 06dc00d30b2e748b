import { FEATURE_NAMES, QUESTION_FEATURE_NAMES } from './features.ts';

/**
 * The answerability model, in two stages, both logistic regressions:
 * - `passage` rates each retrieved passage: P(this passage answers the question).
 *   The answer cites the passage it rates highest.
 * - `question` reads the question as a whole (the passage ratings, how much of
 *   the question the library covers, whether the best passage fails a check):
 *   P(the library answers this question). The bands are on this probability.
 * Weights and bands are LEARNED by `npm run train` from the development corpora
 * (validated leave-one-corpus-out) and live in `answerability-model.json`;
 * nothing here is hand-set.
 */
export interface AnswerabilityModel {
  readonly version: 2;
  readonly passage: LogisticStage;
  readonly question: LogisticStage;
  /** Bands on the question's answerability. */
  readonly bands: Bands;
  /**
   * Bands for a run with a model adjudicator (`ADJUDICATOR=model`): outside them the
   * offline decision meets the budgets on out-of-corpus ratings; between them the
   * model is unsure and an LLM judges (issue 9 C). Absent in older model files.
   */
  readonly adjudicatedBands?: Bands;
  /** How it was made, for the record. */
  readonly trainedOn?: readonly { readonly corpus: string; readonly questions: number }[];
  readonly trainedAt?: string;
}

export interface LogisticStage {
  readonly features: readonly string[];
  /** Standardisation learned with the weights: z = (x − mean) / scale. */
  readonly mean: readonly number[];
  readonly scale: readonly number[];
  readonly weights: readonly number[];
  readonly bias: number;
}

/**
 * The seed's two thresholds, now on the model's probability: below
 * `insufficientBelow` refuse, at or above `sufficientAbove` answer, between them
 * the model is unsure and the question is adjudicated.
 */
export interface Bands {
  readonly insufficientBelow: number;
  readonly sufficientAbove: number;
}

const sigmoid = (z: number) => 1 / (1 + Math.exp(-z));

/** A stage's linear score of one vector (log-odds). */
export function logOdds(stage: LogisticStage, vector: readonly number[]): number {
  let z = stage.bias;
  for (let j = 0; j < stage.weights.length; j++) z += stage.weights[j]! * ((vector[j]! - stage.mean[j]!) / stage.scale[j]!);
  return z;
}

export function probability(stage: LogisticStage, vector: readonly number[]): number {
  return sigmoid(logOdds(stage, vector));
}

/** Each feature's push on the log-odds against an average input, largest first: what a reason quotes. */
export function contributions(stage: LogisticStage, vector: readonly number[]): { readonly feature: string; readonly value: number }[] {
  return stage.features
    .map((feature, j) => ({ feature, value: stage.weights[j]! * ((vector[j]! - stage.mean[j]!) / stage.scale[j]!) }))
    .sort((a, b) => Math.abs(b.value) - Math.abs(a.value));
}

function stageProblem(raw: unknown, names: readonly string[], which: string): string | null {
  if (!raw || typeof raw !== 'object') return `"${which}" must be an object`;
  const m = raw as Record<string, unknown>;
  if (!Array.isArray(m.features) || m.features.join() !== names.join()) return `the ${which} stage's features are not the ones this engine measures`;
  for (const key of ['mean', 'scale', 'weights'] as const) {
    const v = m[key];
    if (!Array.isArray(v) || v.length !== names.length || !v.every((x) => typeof x === 'number' && Number.isFinite(x)))
      return `${which}.${key} must be ${names.length} numbers`;
  }
  if ((m.scale as number[]).some((s) => s <= 0)) return `${which}.scale must be positive`;
  if (typeof m.bias !== 'number' || !Number.isFinite(m.bias)) return `${which}.bias must be a number`;
  return null;
}

/** Validate a model file; a message names what is wrong and how to regenerate it. */
export function parseModel(raw: unknown): { ok: true; model: AnswerabilityModel } | { ok: false; message: string } {
  const fail = (why: string) => ({ ok: false as const, message: `answerability model: ${why}. Re-run \`npm run train\` to regenerate it.` });
  if (!raw || typeof raw !== 'object') return fail('the file must hold a JSON object');
  const m = raw as Record<string, unknown>;
  if (m.version !== 2) return fail(`unknown version ${String(m.version)}`);
  const problem = stageProblem(m.passage, FEATURE_NAMES, 'passage') ?? stageProblem(m.question, QUESTION_FEATURE_NAMES, 'question');
  if (problem) return fail(problem);
  const bands = parseBands(m.bands);
  if (!bands.ok) return fail(bands.message);
  if (m.adjudicatedBands !== undefined) {
    const adjudicated = parseBands(m.adjudicatedBands);
    if (!adjudicated.ok) return fail(`adjudicatedBands: ${adjudicated.message}`);
  }
  return { ok: true, model: raw as AnswerabilityModel };
}

/** Bands a corpus was calibrated to (`sandscope calibrate` writes them to `<corpus>/thresholds.json`). */
export interface BandsFile extends Bands {
  /** The question file calibrate was given, as it was named: for people; `eval` reads `fittedOnQuestions`. */
  readonly fittedOn?: string;
  /**
   * The questions the bands were fitted on, each a digest of its text (case and spacing aside), so `eval` can tell a
   * set scored with these bands in-sample whatever its file is called (S-280). Absent from files written before it.
   */
  readonly fittedOnQuestions?: readonly string[];
  readonly fittedAt?: string;
  readonly questions?: number;
  /** Calibrate's held-out rates, for people; a rate over no question is null. */
  readonly heldOut?: Record<string, number | null>;
}

/** Validate a corpus's bands file; the message names the bad field. */
export function parseBands(raw: unknown): { ok: true; bands: BandsFile } | { ok: false; message: string } {
  if (!raw || typeof raw !== 'object') return { ok: false, message: 'thresholds file must hold a JSON object' };
  const r = raw as Record<string, unknown>;
  for (const key of ['insufficientBelow', 'sufficientAbove'] as const) {
    const v = r[key];
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 1)
      return { ok: false, message: `thresholds file: "${key}" must be a probability from 0 to 1 (the bands are on the answerability model's probability)` };
  }
  if ((r.insufficientBelow as number) > (r.sufficientAbove as number))
    return { ok: false, message: 'thresholds file: insufficientBelow must not exceed sufficientAbove' };
  return { ok: true, bands: r as unknown as BandsFile };
}

/** Who judges the ambiguous band: the offline rules alone, or an LLM through the router. */
export type AdjudicationMode = 'offline' | 'model';

/** The bands in force for a mode: a model adjudicator widens the ambiguous band to where the model is unsure. */
export function bandsFor(model: AnswerabilityModel, mode: AdjudicationMode): Bands {
  return mode === 'model' && model.adjudicatedBands ? model.adjudicatedBands : model.bands;
}
