import type { Outcome } from './metrics.ts';

/**
 * S-180 on the record's own typed questions: a refusal that left a slip as typed offers the question again with the
 * library's word, and what asking it again does is counted here, each question under its corpus's held-out model. The
 * offer was measured only on the pending corpora with the shipped model (`npm run eval:offers`), so the record said
 * what one slip costs and nothing of what the product then offers.
 */
export interface AskedAgain {
  /** Typed questions refused whose refusal offered the question again (`askAgainQuestions`). */
  readonly offered: number;
  readonly answerable: number;
  /** Answerable questions answered (or partial) when asked again with the first question offered… */
  readonly answered: number;
  /** …of which the answer cites the labelled passage (or one of the labelled document). */
  readonly rightSource: number;
  /** The same answerable questions as written, without the slip: answered. */
  readonly cleanAnswered: number;
  readonly unanswerable: number;
  /** Unanswerable questions answered when asked again: false answers the offer leads to. */
  readonly falseAnswers: number;
  /** The same unanswerable questions as written: answered. */
  readonly cleanFalseAnswers: number;
}

const answered = (o: Outcome | undefined) => o !== undefined && o.verdict !== 'refused';

/**
 * Count one corpus's offers. `typed` are its typed questions' outcomes; `again` the outcome of the first question each
 * would offer, by question id (measured only where one is offered); `clean` the questions' outcomes as written.
 */
export function countAskedAgain(typed: readonly Outcome[], again: ReadonlyMap<string, Outcome>, clean: ReadonlyMap<string, Outcome>): AskedAgain {
  let offered = 0;
  let answerable = 0;
  let answeredAgain = 0;
  let rightSource = 0;
  let cleanAnswered = 0;
  let unanswerable = 0;
  let falseAnswers = 0;
  let cleanFalseAnswers = 0;
  for (const t of typed) {
    const a = again.get(t.id);
    // An answer offers nothing (S-180: the offer is said on a refusal only).
    if (t.verdict !== 'refused' || !a) continue;
    offered++;
    if (t.label === 'answerable') {
      answerable++;
      if (answered(a)) answeredAgain++;
      if (answered(a) && a.source === 'right') rightSource++;
      if (answered(clean.get(t.id))) cleanAnswered++;
    } else {
      unanswerable++;
      if (answered(a)) falseAnswers++;
      if (answered(clean.get(t.id))) cleanFalseAnswers++;
    }
  }
  return { offered, answerable, answered: answeredAgain, rightSource, cleanAnswered, unanswerable, falseAnswers, cleanFalseAnswers };
}

/** Corpora's counts, pooled. */
export function poolAskedAgain(parts: readonly AskedAgain[]): AskedAgain {
  const sum = (k: keyof AskedAgain) => parts.reduce((s, p) => s + p[k], 0);
  return {
    offered: sum('offered'),
    answerable: sum('answerable'),
    answered: sum('answered'),
    rightSource: sum('rightSource'),
    cleanAnswered: sum('cleanAnswered'),
    unanswerable: sum('unanswerable'),
    falseAnswers: sum('falseAnswers'),
    cleanFalseAnswers: sum('cleanFalseAnswers'),
  };
}
