import type { Bands, BandVerdict, Ratings } from '@sandscope/engine';
import type { Measured } from './measure.ts';
import { verdictUnder } from './outcome.ts';

/** The seed's budgets: a wrong answer about production costs far more than an unnecessary refusal. */
export interface Budgets {
  readonly falseAnswerRate: number;
  readonly falseRefusalRate: number;
}
export const BUDGETS: Budgets = { falseAnswerRate: 0.05, falseRefusalRate: 0.1 };

/** One-sided 95% Wilson upper bound of a rate observed as `p` over `n` trials. */
export function wilsonUpper(p: number, n: number, z = 1.645): number {
  if (n === 0) return 0;
  const z2 = z * z;
  return (p + z2 / (2 * n) + z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n);
}

/** One-sided 95% Wilson lower bound: below it the rate is unlikely to be (what shows a budget missed, not just not met). */
export function wilsonLower(p: number, n: number, z = 1.645): number {
  if (n === 0) return 0;
  const z2 = z * z;
  return Math.max(0, (p + z2 / (2 * n) - z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / (1 + z2 / n));
}

export interface Scored {
  readonly m: Measured;
  /** Ratings from a model that never saw this question (out of fold), or null when degraded. */
  readonly ratings: Ratings | null;
}

export interface BandFit {
  readonly bands: Bands;
  /** False when no pair met both budgets, with 95% confidence, on the fitting data. */
  readonly feasible: boolean;
  readonly fitted: { readonly falseAnswerRate: number; readonly falseRefusalRate: number; readonly deferralRate: number };
}

/** Rates of one pair of bands over scored questions, by the engine's own verdict arithmetic. */
export function ratesUnder(items: readonly Scored[], bands: Bands) {
  return countRates(
    items,
    (i) => i.m.question.label,
    (i) => verdictUnder(i.m, i.ratings, bands),
  );
}

function countRates<T>(items: readonly T[], labelOf: (item: T) => string, verdictOf: (item: T) => Pick<BandVerdict, 'band' | 'verdict'>) {
  let nA = 0;
  let nU = 0;
  let fa = 0;
  let fr = 0;
  let amb = 0;
  for (const item of items) {
    const v = verdictOf(item);
    if (v.band === 'ambiguous') amb++;
    if (labelOf(item) === 'answerable') {
      nA++;
      if (v.verdict === 'refused') fr++;
    } else {
      nU++;
      if (v.verdict !== 'refused') fa++;
    }
  }
  return { nA, nU, falseAnswerRate: nU ? fa / nU : 0, falseRefusalRate: nA ? fr / nA : 0, deferralRate: items.length ? amb / items.length : 0 };
}

/**
 * A question's verdict in each of the three places a pair of bands can put its rating: below the lower line, between
 * the lines, from the upper line. The bands reach the decision (`bandVerdict`) only through those two comparisons, so
 * the three verdicts, taken once by the decision itself, are its verdict under every pair. S-217: the band sweep took
 * each of ~950 pairs' verdicts afresh for every question, about a third of each leave-one-corpus-out fold's time.
 */
interface Placed {
  readonly label: string;
  readonly answerability: number | null;
  readonly below: BandVerdict;
  readonly between: BandVerdict;
  readonly above: BandVerdict;
}

export function placed(items: readonly Scored[]): Placed[] {
  return items.map(({ m, ratings }) => ({
    label: m.question.label,
    answerability: ratings?.answerability ?? null,
    below: verdictUnder(m, ratings, { insufficientBelow: Number.POSITIVE_INFINITY, sufficientAbove: Number.POSITIVE_INFINITY }),
    between: verdictUnder(m, ratings, { insufficientBelow: Number.NEGATIVE_INFINITY, sufficientAbove: Number.POSITIVE_INFINITY }),
    above: verdictUnder(m, ratings, { insufficientBelow: Number.NEGATIVE_INFINITY, sufficientAbove: Number.NEGATIVE_INFINITY }),
  }));
}

/** `ratesUnder` for questions already `placed`: the same counts. */
export function placedRates(items: readonly Placed[], bands: Bands) {
  return countRates(
    items,
    (i) => i.label,
    (i) => {
      const p = i.answerability;
      if (p !== null && p < bands.insufficientBelow) return i.below;
      return p !== null && p >= bands.sufficientAbove ? i.above : i.between;
    },
  );
}

const GRID = 40;

/**
 * Choose the two bands on `items` alone: meet both budgets, judged on the
 * one-sided 95% upper bound of each rate (S-020: a point on the edge of the
 * fitting data lands over it on new data half the time), while deferring as
 * little as possible; then fewest false answers. When nothing meets both, meet
 * the false-answer budget with the fewest false refusals, and say so. Candidate cut points are quantiles
 * of the fitting data's answerability, never of held-out data.
 */
export function fitBands(items: readonly Scored[], budgets: Budgets = BUDGETS): BandFit {
  const ps = items
    .map((i) => i.ratings?.answerability ?? null)
    .filter((p): p is number => p !== null)
    .sort((a, b) => a - b);
  const grid = [...new Set([0, ...Array.from({ length: GRID + 1 }, (_, q) => ps[Math.min(ps.length - 1, Math.floor((q / GRID) * ps.length))] ?? 0), 1])].sort(
    (a, b) => a - b,
  );
  let best: { bands: Bands; key: number[]; r: ReturnType<typeof ratesUnder> } | null = null;
  let feasibleFound = false;
  const each = placed(items);
  for (let a = 0; a < grid.length; a++) {
    for (let b = a; b < grid.length; b++) {
      const bands = { insufficientBelow: grid[a]!, sufficientAbove: grid[b]! };
      const r = placedRates(each, bands);
      const key = preferenceKey(r, budgets);
      if (key[0] === 0) feasibleFound = true;
      if (!best || lexLess(key, best.key)) best = { bands, key, r };
    }
  }
  const chosen = best!;
  return {
    bands: chosen.bands,
    feasible: feasibleFound,
    fitted: { falseAnswerRate: chosen.r.falseAnswerRate, falseRefusalRate: chosen.r.falseRefusalRate, deferralRate: chosen.r.deferralRate },
  };
}

/** Rates of a pair of bands over a set of questions, with the counts they are rates of. */
export interface BandRates {
  readonly nA: number;
  readonly nU: number;
  readonly falseAnswerRate: number;
  readonly falseRefusalRate: number;
  readonly deferralRate: number;
}

/**
 * The order bands are preferred in, lower first: both budgets met (each rate's one-sided 95% upper bound within
 * it), deferring least; else the false-answer budget met (seed §Two: a wrong answer about production costs far
 * more than an unnecessary refusal), refusing least; else the lowest bound on false answers.
 */
export function preferenceKey(r: BandRates, budgets: Budgets = BUDGETS): number[] {
  const fa = wilsonUpper(r.falseAnswerRate, r.nU);
  const fr = wilsonUpper(r.falseRefusalRate, r.nA);
  if (fa <= budgets.falseAnswerRate && fr <= budgets.falseRefusalRate) return [0, r.deferralRate, r.falseAnswerRate, r.falseRefusalRate];
  if (fa <= budgets.falseAnswerRate) return [1, r.falseRefusalRate, r.deferralRate, 0];
  return [2, fa, r.falseRefusalRate, r.deferralRate];
}

/** Whether rates `a` are preferred to `b` (strictly: a tie keeps `b`). */
export const preferred = (a: BandRates, b: BandRates, budgets: Budgets = BUDGETS) => lexLess(preferenceKey(a, budgets), preferenceKey(b, budgets));

/** What a place of `preferenceKey` weighs: `budgets` is its first (both met, the false-answer one only, or neither). */
export type PreferencePlace = 'budgets' | 'deferral' | 'false answers' | 'false refusals' | 'false-answer bound';

/** The places after the first, by the first (which budgets are met), as `preferenceKey` orders them. */
const PLACES: readonly (readonly PreferencePlace[])[] = [
  ['deferral', 'false answers', 'false refusals'],
  ['false refusals', 'deferral'],
  ['false-answer bound', 'false refusals', 'deferral'],
];

/** Where the order first tells rates `a` and `b` apart, and each one's value there (lower preferred); null for a tie. */
export interface PreferenceSplit {
  readonly place: PreferencePlace;
  readonly a: number;
  readonly b: number;
  /** Each one's first place: 0 both budgets met, 1 the false-answer one only, 2 not that one (95% upper bounds). */
  readonly met: { readonly a: number; readonly b: number };
}

/** Why `preferred(a, b)` says what it says: the first place of their keys that differs, or null for a tie (which keeps `b`). */
export function preferenceSplit(a: BandRates, b: BandRates, budgets: Budgets = BUDGETS): PreferenceSplit | null {
  const ka = preferenceKey(a, budgets);
  const kb = preferenceKey(b, budgets);
  for (let i = 0; i < ka.length; i++) {
    if (Math.abs(ka[i]! - kb[i]!) > 1e-12) return { place: i === 0 ? 'budgets' : PLACES[ka[0]!]![i - 1]!, a: ka[i]!, b: kb[i]!, met: { a: ka[0]!, b: kb[0]! } };
  }
  return null;
}

/**
 * The fewest unanswerable questions on which bands can show the false-answer budget met at all: even with no
 * false answer, the upper bound of 0 of n stays over the budget below it (at 5%, 52). A set smaller than this
 * cannot certify a line; fitted on it, the line can only seek the fewest false answers, whatever the refusals cost.
 */
export function fewestToCertify(budget: number = BUDGETS.falseAnswerRate): number {
  // No count certifies a budget of 0 (the bound of 0 of n only approaches it): the loop would never end.
  if (!(budget > 0 && budget < 1)) throw new RangeError(`a false-answer budget is a rate between 0 and 1, not ${budget}`);
  let n = 1;
  while (wilsonUpper(0, n) > budget) n++;
  return n;
}

function lexLess(a: number[], b: number[]): boolean {
  for (let i = 0; i < a.length; i++) if (Math.abs(a[i]! - b[i]!) > 1e-12) return a[i]! < b[i]!;
  return false;
}

/**
 * What the bands decide on their own when an LLM adjudicates the ambiguous band
 * (`ADJUDICATOR=model`): answers from the sufficient band that are false, refusals
 * from the insufficient band that are false, and the share left to the adjudicator.
 * The adjudicator's own verdicts are not in these figures; no model runs here.
 */
export function decidedOutside(items: readonly Scored[], bands: Bands) {
  let nA = 0;
  let nU = 0;
  let fa = 0;
  let fr = 0;
  let deferredA = 0;
  let deferredU = 0;
  for (const { m, ratings } of items) {
    const v = verdictUnder(m, ratings, bands);
    const answerable = m.question.label === 'answerable';
    if (answerable) nA++;
    else nU++;
    if (v.band === 'ambiguous') {
      if (answerable) deferredA++;
      else deferredU++;
    } else if (answerable && v.verdict === 'refused') fr++;
    else if (!answerable && v.verdict !== 'refused') fa++;
  }
  const n = nA + nU;
  return {
    nA,
    nU,
    falseAnswerRate: nU ? fa / nU : 0,
    falseRefusalRate: nA ? fr / nA : 0,
    deferralRate: n ? (deferredA + deferredU) / n : 0,
    deferredAnswerable: deferredA,
    deferredUnanswerable: deferredU,
  };
}

/**
 * Bands for a run with an LLM adjudicator: refuse below the highest cut whose
 * false refusals meet their budget, answer from the lowest cut whose false
 * answers meet theirs (both on the one-sided 95% upper bound, as `fitBands`);
 * the model is unsure between them, and that is what the adjudicator is asked.
 * The offline bands cannot do this — there, an unsure question must still be
 * answered or refused by the rules — so these are fitted separately.
 *
 * The lower line holds the false-refusal budget on each corpus it is fitted on, not only on their pool (S-071): the
 * target is per corpus, and a pooled line — lifted by the generated set's easy questions — refused 15% of one unread
 * group's answerable questions outright, more than the whole budget before the reader had refused any.
 *
 * `answerNoLowerThan` (the offline bands' upper line): a deployment with a
 * reader answers without asking only what offline would answer. Fitted alone,
 * the upper line fell below the offline one, so configuring a reader made the
 * product answer more questions unasked — on a group nobody had read, three
 * of the four false answers it added (docs/experiments, 2026-12-03).
 */
export function fitAdjudicatedBands(
  items: readonly Scored[],
  budgets: Budgets = BUDGETS,
  answerNoLowerThan = 0,
): { bands: Bands; fitted: ReturnType<typeof decidedOutside> } {
  const ps = [...new Set(items.map((i) => i.ratings?.answerability ?? null).filter((p): p is number => p !== null))].sort((a, b) => a - b);
  const cuts = [0, ...ps, 1];
  const corpora = new Map<string, Scored[]>();
  for (const i of items) {
    const one = corpora.get(i.m.corpus);
    if (one) one.push(i);
    else corpora.set(i.m.corpus, [i]);
  }
  const refusesWithinBudget = (c: number) => {
    const below = { insufficientBelow: c, sufficientAbove: 1.000001 };
    const pooled = decidedOutside(items, below);
    if (wilsonUpper(pooled.falseRefusalRate, pooled.nA) > budgets.falseRefusalRate) return false;
    return [...corpora.values()].every((one) => decidedOutside(one, below).falseRefusalRate <= budgets.falseRefusalRate);
  };
  const lower = lastWhile(cuts, refusesWithinBudget) ?? 0;
  const upper =
    lastWhile(
      [...cuts].reverse().filter((c) => c >= lower),
      (c) => {
        const r = decidedOutside(items, { insufficientBelow: lower, sufficientAbove: c });
        return wilsonUpper(r.falseAnswerRate, r.nU) <= budgets.falseAnswerRate;
      },
    ) ?? 1.000001;
  const bands = { insufficientBelow: lower, sufficientAbove: Math.max(Math.min(upper, 1), answerNoLowerThan) };
  return { bands, fitted: decidedOutside(items, bands) };
}

/**
 * The last of `xs` in the run from the start on which `ok` holds, by bisection: `ok` must hold on a prefix and fail
 * after it. It does for both lines of `fitAdjudicatedBands` — raising the lower line only refuses more, lowering the
 * upper line only answers more — and a scan calling `decidedOutside` at every cut made each training run (and each
 * of leave-one-corpus-out's) spend most of its time here.
 */
function lastWhile<T>(xs: readonly T[], ok: (x: T) => boolean): T | undefined {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ok(xs[mid]!)) lo = mid + 1;
    else hi = mid;
  }
  return lo > 0 ? xs[lo - 1] : undefined;
}
