import { z } from 'zod';

/*
 * `GET /v1/eval/latest` (docs/API.md) as a zod schema: the latest evaluation
 * report (packages/eval's `EvaluationReport`, plus what `npm run eval:report`
 * adds), its per-question rows apart, which the evaluation page reads. Every
 * field but a row's id is optional and every object loose: the report may be
 * an older or partial one (read from docs/evaluation.json or an `eval_run` row
 * recorded before a field existed), and the page must still render it — it
 * reads the figures it trusts once, in app/evaluation/report-view.ts. What the
 * schema does check is that a field present has its type, so a renamed or
 * retyped figure is a clear error, not a chart of `undefined`. No relative
 * imports, for the reason runs.ts gives.
 */

/**
 * The two bands on the answerability model's PROBABILITY (0..1): refuse below
 * `insufficientBelow`, answer at or above `sufficientAbove`, adjudicate between.
 * (Before the learned model they were thresholds on the dense × BM25 product
 * score, under `thresholds`: a report that carries those is an older one.)
 */
export const answerabilityBandsSchema = z.object({ insufficientBelow: z.number(), sufficientAbove: z.number() });
export type AnswerabilityBands = z.infer<typeof answerabilityBandsSchema>;

/** The four rates the report holds against issue 9's targets. */
export const evalTargetsSchema = z.object({
  falseAnswerRate: z.number(),
  falseRefusalRate: z.number(),
  deferralRate: z.number(),
  rightSourceRate: z.number(),
});
export type EvalTargets = z.infer<typeof evalTargetsSchema>;

/**
 * A rate: a fraction, or null where nothing was counted (no unanswerable question scored, no answer from a labelled
 * passage, …). `sandscope eval --record` keeps such a rate as null (S-281: a 0 read as a measured perfect score); the
 * committed record predates it and holds 0 there.
 */
const rate = z.number().nullable().optional();

/** Pooled (or one corpus's) figures; packages/eval's `Metrics`, as `reportedEvaluation` prints them. */
const figures = {
  n: z.number().optional(),
  answerable: z.number().optional(),
  unanswerable: z.number().optional(),
  falseAnswerRate: rate,
  falseRefusalRate: rate,
  deferralRate: rate,
  partialRate: rate,
  wrongSourceAnswers: z.number().optional(),
  rightSourceRate: rate,
  procedureAnswers: z.number().optional(),
  stepsCoveredRate: rate,
  /** False refusals whose refusal names the labelled passage among the closest (S-106; at most three since S-172); absent from older records. */
  refusalsNamingLabelled: z.number().optional(),
  /** Wrong-source answers that name the labelled passage among the closest passages beside them (S-190); absent from older records. */
  wrongSourceNamingLabelled: z.number().optional(),
  /** Refusals claiming the library does not answer, and the answerable questions among them (S-108); absent from older records. */
  refusalsClaimingAbsent: z.number().optional(),
  answerableClaimedAbsent: z.number().optional(),
  mrr: rate,
  recallAt6: rate,
};
export const evalFiguresSchema = z.looseObject(figures);
export type EvalFigures = z.infer<typeof evalFiguresSchema>;

/** One held-out corpus (leave-one-corpus-out) or fold (cross-validation); packages/eval's `CorpusFigures`. */
export const evalCorpusFiguresSchema = evalFiguresSchema.extend({
  name: z.string().optional(),
  questions: z.number().optional(),
  /** Its README's words on whether its errors were read while the decision was developed (seen) or not (unseen). */
  status: z.string().optional(),
  /** Whether the bands it was scored with met both budgets on the data they were fitted on. */
  workable: z.boolean().optional(),
  bands: answerabilityBandsSchema.optional(),
});
export type EvalCorpusFigures = z.infer<typeof evalCorpusFiguresSchema>;

const mechanismCountsSchema = z.looseObject({
  label: z.string(),
  n: z.number(),
  answered: z.number(),
  partial: z.number(),
  refused: z.number(),
  ambiguous: z.number(),
});

/** A report's summary without the generated set's (which has the same shape and no second level). */
const evalRunSummarySchema = evalFiguresSchema.extend({
  /** 'leave-one-corpus-out', 'cross-validated' or 'shipped-model'; any string, so a new mode still renders. */
  mode: z.string().optional(),
  byMechanism: z.record(z.string(), mechanismCountsSchema).optional(),
  corpora: z.array(evalCorpusFiguresSchema).optional(),
  bands: answerabilityBandsSchema.optional(),
  budgets: z.looseObject({ falseAnswerRate: z.number().optional(), falseRefusalRate: z.number().optional() }).optional(),
  targets: evalTargetsSchema.partial().optional(),
  evidenceErrors: z.array(z.looseObject({ corpus: z.string().optional(), id: z.string().optional(), message: z.string().optional() })).optional(),
  excluded: z.array(z.string()).optional(),
  askP50Ms: z.number().optional(),
  generatedAt: z.string().optional(),
  createdAt: z.string().optional(),
});

export const evalSummarySchema = evalRunSummarySchema.extend({
  /** The generated set's cross-validation: the second figure, an upper bound. */
  generated: evalRunSummarySchema.optional(),
});
export type EvalSummary = z.infer<typeof evalSummarySchema>;

/**
 * One row of `questions` (packages/eval's `QuestionRow`), which the band
 * explorer replays. The agent normalises the documented fields; the rest of
 * what the evaluation recorded (its features) passes through.
 */
export const evalQuestionRowSchema = z.looseObject({
  id: z.string(),
  corpus: z.string().optional(),
  question: z.string().optional(),
  label: z.string().optional(),
  mechanism: z.string().optional(),
  band: z.string().optional(),
  verdict: z.string().optional(),
  /** The probability the model that scored it gave; null when retrieval was degraded or found nothing. */
  answerability: z.number().nullable().optional(),
  /** Whether adjudication would let it through as partial were it in the ambiguous band. */
  adjudicable: z.boolean().optional(),
  /** Whether its best passage fails no check: at or above the answer band it is answered only if so. */
  bestPasses: z.boolean().optional(),
  /** dense × BM25 of the strongest passage: the old gate's score, now only reported. */
  score: z.number().nullable().optional(),
  /** For an answered answerable question: did it cite its labelled passage. */
  source: z.enum(['right', 'wrong', 'unknown']).nullable().optional(),
  /** For an answered question: the passages its answer cites, by id (null when refused). */
  cited: z.array(z.string()).nullable().optional(),
  rank: z.number().nullable().optional(),
});
export type EvalQuestionRow = z.infer<typeof evalQuestionRowSchema>;

const optionalNumber = z.number().optional();

/**
 * One group of `replayedReader` (packages/eval's `ReplayedReaderGroup`): corpora held out of training together,
 * their figures pooled by the agent. Rates are of the group's pooled questions.
 */
export const replayedReaderGroupSchema = z.looseObject({
  name: z.string().optional(),
  corpora: z.array(z.string()).optional(),
  /** Whether the group's errors had been read, in the summary's words ("seen: …", "unread: …"). */
  read: z.string().optional(),
  answerable: optionalNumber,
  unanswerable: optionalNumber,
  offline: z
    .looseObject({ falseAnswers: optionalNumber, falseRefusals: optionalNumber, falseAnswerRate: optionalNumber, falseRefusalRate: optionalNumber })
    .optional(),
  /** Procedure answers that keep every step of their labelled section, offline and with the reader. */
  steps: z
    .looseObject({
      offline: z.looseObject({ procedureAnswers: optionalNumber, kept: optionalNumber }).optional(),
      reader: z.looseObject({ procedureAnswers: optionalNumber, kept: optionalNumber }).optional(),
    })
    .optional(),
  reader: z
    .looseObject({
      falseAnswers: optionalNumber,
      falseRefusals: optionalNumber,
      falseAnswerRate: optionalNumber,
      falseRefusalRate: optionalNumber,
      deferred: optionalNumber,
      deferralRate: optionalNumber,
      deferredAnswerable: optionalNumber,
      deferredUnanswerable: optionalNumber,
      answerableLetThrough: optionalNumber,
      unanswerableLetThrough: optionalNumber,
      answerableRefusedUnshown: optionalNumber,
      /** The answers the reader read before they were given (S-096), and how many it withheld. */
      answersRead: z
        .looseObject({
          answerable: optionalNumber,
          unanswerable: optionalNumber,
          answerableWithheld: optionalNumber,
          unanswerableWithheld: optionalNumber,
          unavailable: optionalNumber,
        })
        .optional(),
      /** Questions answered partial from the search's next passages (S-097). */
      answeredDeeper: z.looseObject({ answerable: optionalNumber, unanswerable: optionalNumber }).optional(),
      /** Answers of the sufficient band given partial from another passage the reader named (S-098). */
      answersMoved: z.looseObject({ answerable: optionalNumber, unanswerable: optionalNumber }).optional(),
      refusalsRead: z
        .looseObject({ answerable: optionalNumber, unanswerable: optionalNumber, answerableLetThrough: optionalNumber, unanswerableLetThrough: optionalNumber })
        .optional(),
      /** Prompts the reader was sent over the group's questions: what it costs, which deferral does not count. */
      calls: optionalNumber,
    })
    .optional(),
});
export type ReplayedReaderGroupFigures = z.infer<typeof replayedReaderGroupSchema>;

/**
 * A reader in the ambiguous band measured with an LLM's recorded judgements replayed through the product's
 * `ADJUDICATOR=model` path (`npm run reader:replay`, docs/experiments/adjudicator-replay/summary.json): not the
 * leave-one-corpus-out record, in which no model runs.
 */
export const replayedReaderSchema = z.looseObject({
  generatedAt: z.string().optional(),
  /** The command that wrote it. */
  command: z.string().optional(),
  /** What changed in the offline decision since it was printed, when it was not printed again: said beside its figures. */
  notRemeasuredSince: z.string().optional(),
  groups: z.array(replayedReaderGroupSchema).optional(),
});
export type ReplayedReaderFigures = z.infer<typeof replayedReaderSchema>;

const verdictCounts = z.looseObject({ yes: optionalNumber, partly: optionalNumber, no: optionalNumber });

/**
 * The source audit of the record's wrong-source answers (packages/eval's `auditSources`, S-186) and the trust figure it
 * makes (`answersNotAnswering`): of the answers given, those that do not answer the question asked.
 */
export const sourceAuditSchema = z.looseObject({
  /** Wrong-source answers in the record, and of them those judged on the passages the record's answer cites. */
  wrong: optionalNumber,
  judged: optionalNumber,
  /** Does the cited passage answer? The labelled passage is the control. */
  cited: verdictCounts.optional(),
  labelled: verdictCounts.optional(),
  given: optionalNumber,
  falseAnswers: optionalNumber,
  wrongSourceNotAnswering: optionalNumber,
  notAnswering: optionalNumber,
  partly: optionalNumber,
});

export const evalLatestSchema = z.object({
  summary: evalSummarySchema,
  questions: z.array(evalQuestionRowSchema),
  /** Where the agent read it: the newest `eval_run` row, or the committed report file. */
  source: z.enum(['database', 'file']).optional(),
  /** Present when the agent found docs/experiments/adjudicator-replay/summary.json beside the report and could read it. */
  replayedReader: replayedReaderSchema.optional(),
  /** Present when the agent found docs/experiments/source-audit/judgements.jsonl beside the report, could read it, and it judges a wrong-source answer of this record. */
  sourceAudit: sourceAuditSchema.optional(),
});
export type EvalLatest = z.infer<typeof evalLatestSchema>;
