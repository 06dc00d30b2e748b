import {
  type AnswerabilityFeatures,
  type AnswerabilityModel,
  FEATURE_NAMES,
  type LogisticStage,
  logOdds,
  passageProbabilities,
  probability,
  QUESTION_FEATURE_NAMES,
  questionVector,
  type Ratings,
} from '@sandscope/engine';
import { type BandFit, type Budgets, BUDGETS, fitAdjudicatedBands, fitBands, type Scored } from './bands.ts';
import { type Choice, type Example, fitConditionalLogit, fitLogistic } from './logistic.ts';
import type { Measured } from './measure.ts';
import { verdictUnder } from './outcome.ts';

/** A group of measured questions held out together: a corpus, or a fold of one. */
export interface TrainingGroup {
  readonly name: string;
  readonly measured: readonly Measured[];
}

/** L2 strength on standardised weights: fixed, not swept (a sweep would be one more constant to validate). */
export const RIDGE = 1;

/**
 * The passage stage: a choice among one question's retrieved passages, learned
 * from answerable questions whose labelled passage was retrieved (one labelled
 * passage per question; where only a document is labelled, its best-retrieved
 * passage). It learns what sets the answering passage apart from its neighbours;
 * whether anything answers at all is the question stage's job.
 */
function passageStage(groups: readonly TrainingGroup[], start?: LogisticStage): LogisticStage {
  const choices: Choice[] = [];
  for (const g of groups) {
    const usable = g.measured.filter((m) => !m.features.degraded && m.gold.includes(true) && m.features.passages.length > 1);
    for (const m of usable) choices.push({ xs: m.features.passages.map((p) => p.vector), gold: m.gold.indexOf(true), w: 1000 / Math.max(1, usable.length) });
  }
  return { features: [...FEATURE_NAMES], ...fitConditionalLogit(choices, RIDGE, undefined, start) };
}

const ratePassages = (stage: LogisticStage, f: AnswerabilityFeatures) => ({
  probabilities: passageProbabilities(stage, f),
  scores: f.passages.map((p) => logOdds(stage, p.vector)),
});
type Rated = { readonly m: Measured; readonly probabilities: number[]; readonly scores: number[] };

/** The question stage, on passage ratings from models that did not see the question (stacking without leakage). */
function questionStage(rated: readonly { name: string; rows: readonly Rated[] }[], start?: LogisticStage): LogisticStage {
  const examples: Example[] = [];
  for (const g of rated) {
    const w = 1000 / Math.max(1, g.rows.length);
    for (const r of g.rows) examples.push({ x: questionVector(r.m.features, r.probabilities, r.scores), y: r.m.question.label === 'answerable' ? 1 : 0, w });
  }
  return { features: [...QUESTION_FEATURE_NAMES], ...fitLogistic(examples, RIDGE, undefined, start) };
}

const others = <T>(all: readonly T[], one: T) => all.filter((o) => o !== one);

export interface Trained {
  readonly model: AnswerabilityModel;
  readonly bandFit: BandFit;
  /** The bands for a run with an LLM adjudicator, fitted on the same out-of-group ratings. */
  readonly adjudicatedFit: ReturnType<typeof fitAdjudicatedBands>;
  /** Names of the groups it was trained on (the leakage check reads this). */
  readonly trainedOn: readonly string[];
  /** Each training question rated by stages fitted without its group: what the bands were chosen on. */
  readonly outOfGroup: readonly Scored[];
}

/**
 * The whole training procedure, on `groups` alone.
 * 1. Passage stage on every group; and, for each group, a passage stage fitted
 *    WITHOUT it, whose ratings of that group are out of group.
 * 2. Question stage on those out-of-group ratings (its inputs are never ratings
 *    of questions the passage stage memorised); and again without each group.
 * 3. Bands on the out-of-group question ratings: chosen on scores the model did
 *    not memorise (the seed's classifier that looked excellent in-sample) — the
 *    offline pair, and the wider pair for a run with an LLM adjudicator.
 * Leave-one-corpus-out hands this every corpus but the held-out one.
 */
export function trainModel(groups: readonly TrainingGroup[], budgets: Budgets = BUDGETS): Trained {
  const live = groups.map((g) => ({ name: g.name, measured: g.measured.filter((m) => !m.features.degraded && m.features.passages.length > 0) }));
  const passage = passageStage(live);
  // Each stage again without each group, started from the fit on all of them (the same optimum, reached sooner).
  const rated = live.map((g) => {
    const without = live.length > 1 ? passageStage(others(live, g), passage) : passage;
    return { name: g.name, rows: g.measured.map((m): Rated => ({ m, ...ratePassages(without, m.features) })) };
  });
  const question = questionStage(rated);
  const outOfGroup: Scored[] = rated.flatMap((g) => {
    const q = rated.length > 1 ? questionStage(others(rated, g), question) : question;
    return g.rows.map(
      (r): Scored => ({
        m: r.m,
        ratings: { probabilities: r.probabilities, answerability: probability(q, questionVector(r.m.features, r.probabilities, r.scores)) } satisfies Ratings,
      }),
    );
  });
  const bandFit = fitBands(outOfGroup, budgets);
  const adjudicatedFit = fitAdjudicatedBands(outOfGroup, budgets, bandFit.bands.sufficientAbove);
  return {
    model: {
      version: 2,
      passage,
      question,
      bands: bandFit.bands,
      adjudicatedBands: adjudicatedFit.bands,
      trainedOn: groups.map((g) => ({ corpus: g.name, questions: g.measured.length })),
    },
    bandFit,
    adjudicatedFit,
    trainedOn: groups.map((g) => g.name),
    outOfGroup,
  };
}

/**
 * The out-of-corpus ratings training fitted its bands on, one row per question, the `left` questions (the
 * generated set's: its vocabulary is the corpus's own) left out: a development figure for every corpus at the
 * cost of one training run (`npm run train`, `npm run train:ablate`). It judges nothing.
 * Each row's verdict is the product's under the fitted bands (`verdictUnder`, the arithmetic `decideAnswerability`
 * runs) on that out-of-corpus rating. S-083: `npm run train -- --rows` wrote "answered" for every rating at or above
 * the answer line and "refused" below it, a mirror of the decision without its checks (`passes`), its ambiguous band
 * (partial) or its value conflicts, so the false answers `npm run eval:groups` counted from those rows were not the
 * product's.
 */
export function outOfCorpusRows(trained: Trained, left: (m: Measured) => boolean) {
  return trained.outOfGroup
    .filter((s) => !left(s.m))
    .map((s) => ({
      id: s.m.question.id,
      corpus: s.m.corpus,
      label: s.m.question.label,
      answerability: s.ratings?.answerability ?? null,
      verdict: verdictUnder(s.m, s.ratings, trained.model.bands).verdict,
    }));
}
