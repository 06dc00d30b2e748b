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
  // An answer offers nothing (S-180: the offer is said on a refusal only).
  const offered = typed.filter((t) => t.verdict === 'refused' && again.has(t.id));
  const answerable = offered.filter((t) => t.label === 'answerable');
  const unanswerable = offered.filter((t) => t.label !== 'answerable');
  const count = (ts: readonly Outcome[], ok: (asked: Outcome | undefined) => boolean, of: ReadonlyMap<string, Outcome>) =>
    ts.filter((t) => ok(of.get(t.id))).length;
  return {
    offered: offered.length,
    answerable: answerable.length,
    answered: count(answerable, answered, again),
    rightSource: count(answerable, (a) => answered(a) && a!.source === 'right', again),
    cleanAnswered: count(answerable, answered, clean),
    unanswerable: unanswerable.length,
    falseAnswers: count(unanswerable, answered, again),
    cleanFalseAnswers: count(unanswerable, answered, clean),
  };
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
