import type { CorpusFigures, EvaluationReport, QuestionRow } from './evaluate.ts';

/**
 * What each rate of a figure was counted over, and the questions a rate leaves out, by why: read from the rows a
 * report carries with their detail (`RowsDetail`). Right source, MRR and the steps share are each over part of the
 * answerable questions; said as bare rates, renaming one question's evidence field moved right source from 94.4% to
 * 100% and the steps share from 80% to 100% with no word of the questions that had left the count (S-282).
 */
export interface CountedOver {
  readonly scored: number;
  readonly answerable: number;
  readonly unanswerable: number;
  /** Questions in the ambiguous band: what `partialRate` is over. */
  readonly ambiguous: number;
  /** Answered answerable questions with a labelled passage (or document): what right source is over. */
  readonly sourced: number;
  readonly rightSource: number;
  /** Answered answerable questions with none, left out of right source. */
  readonly answeredUnlabelled: number;
  /** Answerable questions with a labelled passage (or document): what MRR and recall@6 are over. */
  readonly ranked: number;
  /** Answerable questions with none, left out of MRR and recall@6. */
  readonly answerableUnlabelled: number;
  /** Answered procedure questions (answerable): the steps share is over those with labelled steps (`procedureAnswers`). */
  readonly procedureAnswered: number;
  readonly procedureAnswers: number;
  readonly stepsKept: number;
  /** Answered procedure questions left out of the steps share: no labelled passage (none, or a document only)… */
  readonly procedureUnlabelled: number;
  /** …or a labelled section with fewer than two numbered or bulleted steps (S-283: they left it without notice). */
  readonly procedureWithoutSteps: number;
  /** False refusals, and those with a labelled passage, the only ones a refusal can be seen to name it among. */
  readonly falseRefusals: number;
  readonly falseRefusalsLabelled: number;
  readonly falseRefusalsNamingLabelled: number;
}

const answered = (r: QuestionRow) => r.verdict !== 'refused';

/** Whether rows carry their detail: a report from before it (the committed record's), or one not asked for it, does not. */
export const rowsDetailed = (rows: readonly QuestionRow[]): boolean => rows.length > 0 && rows.every((r) => r.scoredIn !== undefined);

/** The counts behind a figure, from its rows (detailed: `rowsDetailed`). */
export function countedOver(rows: readonly QuestionRow[]): CountedOver {
  const answerable = rows.filter((r) => r.label === 'answerable');
  const answers = answerable.filter(answered);
  const sourced = answers.filter((r) => r.source === 'right' || r.source === 'wrong');
  const procedures = answers.filter((r) => r.procedure);
  const counted = procedures.filter((r) => r.stepsKept !== null && r.stepsKept !== undefined);
  const uncounted = procedures.filter((r) => r.stepsKept === null || r.stepsKept === undefined);
  const refused = answerable.filter((r) => !answered(r));
  const refusedLabelled = refused.filter((r) => r.labelled);
  return {
    scored: rows.length,
    answerable: answerable.length,
    unanswerable: rows.length - answerable.length,
    ambiguous: rows.filter((r) => r.band === 'ambiguous').length,
    sourced: sourced.length,
    rightSource: sourced.filter((r) => r.source === 'right').length,
    answeredUnlabelled: answers.length - sourced.length,
    ranked: answerable.filter((r) => r.labelled).length,
    answerableUnlabelled: answerable.filter((r) => !r.labelled).length,
    procedureAnswered: procedures.length,
    procedureAnswers: counted.length,
    stepsKept: counted.filter((r) => r.stepsKept === true).length,
    procedureUnlabelled: uncounted.filter((r) => r.labelledSteps === null || r.labelledSteps === undefined).length,
    procedureWithoutSteps: uncounted.filter((r) => typeof r.labelledSteps === 'number').length,
    falseRefusals: refused.length,
    falseRefusalsLabelled: refusedLabelled.length,
    falseRefusalsNamingLabelled: refusedLabelled.filter((r) => r.refusalNamesLabelled === true).length,
  };
}

/** The rates a report's figures carry, each a fraction or, where nothing was counted, null. */
const RATES = ['falseAnswerRate', 'falseRefusalRate', 'deferralRate', 'partialRate', 'rightSourceRate', 'stepsCoveredRate', 'mrr', 'recallAt6'] as const;
type RateKey = (typeof RATES)[number];
/** Figures as `--json` prints them: a rate over no question is null, not 0 (S-281: 0 read as a measured perfect score). */
export type Reported<T> = { [K in keyof T]: K extends RateKey ? number | null : T[K] };

type RateFigures = Pick<CorpusFigures, RateKey | 'n' | 'answerable' | 'unanswerable' | 'wrongSourceAnswers' | 'procedureAnswers'>;

/** Each rate's denominator: from the counts when there are rows to count, else from the figure itself. */
function denominators(f: RateFigures, counted: CountedOver | null): Record<RateKey, number> {
  return {
    falseAnswerRate: f.unanswerable,
    falseRefusalRate: f.answerable,
    deferralRate: f.n,
    // The ambiguous band's share of the questions times their number is its count.
    partialRate: counted?.ambiguous ?? Math.round(f.deferralRate * f.n),
    // None right and none wrong: no answer of a labelled question was given.
    rightSourceRate: counted?.sourced ?? (f.rightSourceRate === 0 && f.wrongSourceAnswers === 0 ? 0 : 1),
    stepsCoveredRate: f.procedureAnswers,
    mrr: counted?.ranked ?? f.answerable,
    recallAt6: counted?.ranked ?? f.answerable,
  };
}

/** A figure with every rate over nothing as null, and, from its rows, what each rate was counted over. */
export function reportedFigures<T extends RateFigures>(f: T, rows?: readonly QuestionRow[]): Reported<T> & { countedOver?: CountedOver } {
  const counted = rows && rowsDetailed(rows) ? countedOver(rows) : null;
  const over = denominators(f, counted);
  const out: Record<string, unknown> = { ...f };
  for (const key of RATES) if (key in f && over[key] === 0) out[key] = null;
  return { ...(out as Reported<T>), ...(counted ? { countedOver: counted } : {}) };
}

/** What an adjudicator's bands decide alone (`adjudicated`), with its rates over nothing as null. */
function reportedAdjudicated<
  T extends { readonly nA: number; readonly nU: number; readonly falseAnswerRate: number; readonly falseRefusalRate: number; readonly deferralRate: number },
>(a: T) {
  return {
    ...a,
    falseAnswerRate: a.nU ? a.falseAnswerRate : null,
    falseRefusalRate: a.nA ? a.falseRefusalRate : null,
    deferralRate: a.nA + a.nU ? a.deferralRate : null,
  };
}

/**
 * The report as `sandscope eval --json` and `calibrate --json` print it and a `--record`ed run keeps it: pooled,
 * per corpus or fold, typed and adjudicated figures alike with a rate over nothing as null (S-281: `falseAnswerRate: 0`
 * with no unanswerable question scored, and per-fold lines at 0.0% where the pooled line said n/a). Each figure says
 * what its rates were counted over when the rows carry their detail.
 */
export function reportedEvaluation(r: EvaluationReport) {
  const detailed = rowsDetailed(r.questions);
  const corpora = r.corpora.map((c) => {
    const adjudicated = (c as { adjudicated?: Parameters<typeof reportedAdjudicated>[0] }).adjudicated;
    return {
      ...reportedFigures(c, detailed ? r.questions.filter((q) => q.scoredIn === c.name) : undefined),
      ...(c.typed ? { typed: reportedFigures(c.typed) } : {}),
      ...(adjudicated ? { adjudicated: reportedAdjudicated(adjudicated) } : {}),
    };
  });
  return {
    ...reportedFigures(r, detailed ? r.questions : undefined),
    corpora,
    ...(r.typed ? { typed: reportedFigures(r.typed) } : {}),
    ...(r.adjudicated ? { adjudicated: reportedAdjudicated(r.adjudicated) } : {}),
  };
}
