import {
  type AnswerabilityModel,
  type Bands,
  confirmed,
  type Decision,
  decideAnswerability,
  type ModelConfirmation,
  type ModelJudgement,
  readerStep,
  settled,
} from '@sandscope/engine';
import { type EvaluationReport, shippedReport } from './evaluate.ts';
import { isGold, type Measured } from './measure.ts';
import type { Outcome } from './metrics.ts';
import { outcomeOfDecision } from './outcome.ts';

/** What an LLM adjudicator did with the questions the adjudicated bands left to it. */
export interface ModelAdjudicationFigures {
  /** The adjudicated bands: outside them the offline decision stands; between them the adjudicator judges. */
  readonly bands: Bands;
  readonly deferredAnswerable: number;
  readonly deferredUnanswerable: number;
  /** Questions a model judged — deferred, and since S-100 those below the lower line — by the provider that served the judgement. */
  readonly judgedBy: Readonly<Record<string, number>>;
  /** Questions a model was asked to judge (deferred, or below the lower line) but gave no usable judgement on (every provider failed, no judgement in the reply…): decided as offline. */
  readonly unavailable: number;
  /** Deferred questions no model was asked about, there being no passage to show; refused. Since S-076 a model is shown the likeliest passages even when each fails a check, so only a question with none retrieved counts here. */
  readonly nothingToShow: number;
  /** Of the deferred answerable questions, how many the adjudication let through (partial). */
  readonly answerableLetThrough: number;
  /** Of the deferred unanswerable questions, how many it let through: its false answers. */
  readonly unanswerableLetThrough: number;
  /**
   * Of the deferred answerable questions it refused, how many it was never shown the labelled passage (or a passage of
   * the labelled document) for: refusals the candidates decided, not the reader. Absent from summaries written before it.
   */
  readonly answerableRefusedUnshown?: number;
  /**
   * S-096: the answers the sufficient band gives without asking, each read by the reader before it is given, and how
   * many it withheld. Absent from summaries written before it.
   */
  readonly answersRead?: {
    readonly answerable: number;
    readonly unanswerable: number;
    /** Of the answerable questions read, how many it withheld: false refusals it added. */
    readonly answerableWithheld: number;
    /** Of the unanswerable questions read, how many it withheld: false answers it took away. */
    readonly unanswerableWithheld: number;
    /** Read by no model (every provider failed, no reading in the reply…): answered as offline. */
    readonly unavailable: number;
  };
  /**
   * S-097: questions answered partial from a passage past the gate's six — deferred or read, none of the gate's
   * passages answering them in the reader's reading — by label: what the deeper read let through, right and wrong.
   * Absent from summaries written before it.
   */
  readonly answeredDeeper?: { readonly answerable: number; readonly unanswerable: number };
  /**
   * S-098: answers of the sufficient band the reader read and gave partial from another of the passages the gate read,
   * the one it named, where the gate had answered from others — by label. Absent from summaries written before it.
   */
  readonly answersMoved?: { readonly answerable: number; readonly unanswerable: number };
  /**
   * S-100: questions rated below the lower line — refused unread before — that the reader read before refusing, by
   * label, and how many of each it let through (partial): false refusals taken away, false answers added. Not counted
   * as deferred, which stays the band where the model is unsure. Absent from summaries written before it.
   */
  readonly refusalsRead?: {
    readonly answerable: number;
    readonly unanswerable: number;
    readonly answerableLetThrough: number;
    readonly unanswerableLetThrough: number;
  };
  /**
   * Prompts sent to a model, over every question: what a reader costs. Deferral counts only the band where the model
   * is unsure, and since S-096 and S-100 a reader also reads the answers and the refusals below it, and reads deeper
   * before it refuses (S-097): the deferral target no longer bounds the calls, so they are counted. Absent from
   * summaries written before it. S-261: with a reader that counts what reached a provider (`ModelReader.cost`), only
   * the prompts a provider was sent: a prompt the spend guard refused was counted as sent, and "prompts sent to a
   * model: 5" was printed of a run in which no request reached the provider.
   */
  readonly calls?: number;
  /**
   * S-261: the prompts the spend guard refused before any provider was sent them, and what the reader spent. Each
   * question is a run with its own RUN_BUDGET_USD, and every priced call is booked against DAILY_SPEND_CEILING_USD as
   * a run's is. `unjudged` and `unread` are the questions of `unavailable` and `answersRead.unavailable` whose every
   * prompt was refused so: decided (or answered) as offline because of the budget, not a provider. Absent where the
   * reader does not count its cost (a test's double, a summary written before it).
   */
  readonly budget?: {
    readonly refusedByRunBudget: number;
    readonly refusedByDailyCeiling: number;
    readonly unjudged: number;
    readonly unread: number;
    readonly spentUsd: number;
  };
}

/** What a reader's calls have cost so far (cumulative): read before and after each question. */
export interface ReaderCost {
  /** Prompts at least one provider (not the offline model) was sent. */
  readonly sent: number;
  /** Prompts the spend guard refused before sending: the run's budget (RUN_BUDGET_USD, or its token allowance). */
  readonly refusedByRunBudget: number;
  /** Prompts refused because the deployment's daily ceiling (DAILY_SPEND_CEILING_USD) could not take them. */
  readonly refusedByDailyCeiling: number;
  readonly spentUsd: number;
}

export type ModelAdjudicatedReport = EvaluationReport & { readonly modelAdjudication: ModelAdjudicationFigures };

const budgetOf = (c: ReaderCost) => ({ refusedByRunBudget: c.refusedByRunBudget, refusedByDailyCeiling: c.refusedByDailyCeiling, spentUsd: c.spentUsd });

/** What a reader does in an evaluation: `judgeByModel` and `confirmByModel` through the configured providers, or a test's doubles. */
export interface ModelReader {
  /** One deferred question's judgement. */
  readonly judge: (m: Measured, decision: Decision) => Promise<ModelJudgement>;
  /** One answer of the sufficient band, read before it is given (S-096). */
  readonly confirm: (m: Measured, decision: Decision) => Promise<ModelConfirmation>;
  /** What its calls have cost so far (S-261); without it, `calls` counts every prompt the reader made, sent or not. */
  readonly cost?: () => ReaderCost;
}

const NO_COST: ReaderCost = { sent: 0, refusedByRunBudget: 0, refusedByDailyCeiling: 0, spentUsd: 0 };

/** Whether a question's reading was refused by the budget and never sent: refused prompts, and none sent. */
function refusedUnsent(before: ReaderCost, after: ReaderCost): boolean {
  const refused = after.refusedByRunBudget + after.refusedByDailyCeiling - before.refusedByRunBudget - before.refusedByDailyCeiling;
  return refused > 0 && after.sent === before.sent;
}

/**
 * `sandscope eval --questions FILE --adjudicator model`: a set scored as a deployment with `ADJUDICATOR=model`
 * decides it — the adjudicated bands, and, between them, the judgement the graph's adjudicate node takes
 * (`judgeByModel`), settled as that node settles it (`settled`: partial from the passage it names, or refused; never
 * sufficient). Before this the evaluation could only say what the bands leave to an adjudicator, not how well one
 * judges: no model ran in it. Since S-096 the answers the sufficient band gives are read by the reader as well, as the
 * graph reads them (`confirmByModel`, settled by `confirmed`). One question at a time, each a run of its own as in the
 * product (its own budget).
 */
export async function evaluateModelAdjudicated(
  measured: readonly Measured[],
  model: AnswerabilityModel,
  reader: ModelReader,
  options: Parameters<typeof shippedReport>[3] = {},
): Promise<ModelAdjudicatedReport> {
  const bands = model.adjudicatedBands ?? model.bands;
  const outcomes: Outcome[] = [];
  const judgedBy: Record<string, number> = {};
  let unavailable = 0;
  let nothingToShow = 0;
  const deferred = { answerable: 0, unanswerable: 0 };
  const letThrough = { answerable: 0, unanswerable: 0 };
  let refusedUnshown = 0;
  const read = { answerable: 0, unanswerable: 0, answerableWithheld: 0, unanswerableWithheld: 0, unavailable: 0 };
  const deeper = { answerable: 0, unanswerable: 0 };
  const moved = { answerable: 0, unanswerable: 0 };
  const refusalsRead = { answerable: 0, unanswerable: 0, answerableLetThrough: 0, unanswerableLetThrough: 0 };
  let calls = 0;
  const cost = () => reader.cost?.() ?? NO_COST;
  const budget = { unjudged: 0, unread: 0 };
  const fromDeeper = (m: Measured, d: Decision) => d.verdict === 'partial' && m.deeper.some((r) => r.chunk.id === d.evidence[0]?.id);
  for (const m of measured) {
    const decision = decideAnswerability(m.features, model, bands, true);
    const label = m.question.label === 'answerable' ? 'answerable' : 'unanswerable';
    const step = readerStep(decision);
    if (step === 'confirm') {
      // S-096: as the graph does, the reader reads the answer before it is given.
      const before = cost();
      const confirmation = await reader.confirm(m, decision);
      calls += confirmation.calls;
      read[label]++;
      if (confirmation.withheld?.decision === 'refuse') read[label === 'answerable' ? 'answerableWithheld' : 'unanswerableWithheld']++;
      else if (confirmation.judgedBy === null) {
        read.unavailable++;
        if (refusedUnsent(before, cost())) budget.unread++;
      }
      const final = confirmed(decision, confirmation);
      if (fromDeeper(m, final)) deeper[label]++;
      else if (final.verdict === 'partial') moved[label]++;
      outcomes.push(outcomeOfDecision(m, final, model));
      continue;
    }
    if (step === null) {
      outcomes.push(outcomeOfDecision(m, decision, model));
      continue;
    }
    // S-100: a refusal of the insufficient band is read as the ambiguous band is judged; counted apart from deferral.
    const below = decision.assessment.band === 'insufficient';
    if (below) refusalsRead[label]++;
    else deferred[label]++;
    const before = cost();
    const judgement = await reader.judge(m, decision);
    calls += judgement.calls;
    if (judgement.shown.length === 0) nothingToShow++;
    else if (judgement.judgedBy === null) {
      unavailable++;
      if (refusedUnsent(before, cost())) budget.unjudged++;
    } else judgedBy[judgement.judgedBy] = (judgedBy[judgement.judgedBy] ?? 0) + 1;
    const final = settled(decision, judgement.adjudication);
    if (below) {
      if (final.verdict === 'partial') refusalsRead[label === 'answerable' ? 'answerableLetThrough' : 'unanswerableLetThrough']++;
    } else if (final.verdict === 'partial') letThrough[label]++;
    else if (label === 'answerable' && ![...m.retrieval.results, ...m.deeper].some((r) => judgement.shown.includes(r.chunk.id) && isGold(m.question, r.chunk)))
      refusedUnshown++;
    if (fromDeeper(m, final)) deeper[label]++;
    outcomes.push(outcomeOfDecision(m, final, model));
  }
  return {
    ...shippedReport(measured, outcomes, bands, options),
    modelAdjudication: {
      bands,
      deferredAnswerable: deferred.answerable,
      deferredUnanswerable: deferred.unanswerable,
      judgedBy,
      unavailable,
      nothingToShow,
      answerableLetThrough: letThrough.answerable,
      unanswerableLetThrough: letThrough.unanswerable,
      answerableRefusedUnshown: refusedUnshown,
      answersRead: read,
      answeredDeeper: deeper,
      answersMoved: moved,
      refusalsRead,
      ...(reader.cost ? { calls: cost().sent, budget: { ...budgetOf(cost()), ...budget } } : { calls }),
    },
  };
}
