import type { RefusalClaim, Terminal, Verdict } from '../types.ts';

// The verdict's type, for a module that reads this file without the engine's index (the store's feedback rule, S-224).
export type { Verdict };

/*
 * Imports types only, on purpose: the website reads this file through
 * @sandscope/api, so it must stay free of anything but words and one function.
 */

/**
 * What a finished run amounts to for the person who asked — the one word the
 * CLI, the API (`outcome`) and the website all show.
 *
 * A run has two facts that used to be shown side by side and could contradict
 * each other: the evidence gate's `verdict` (does the library answer this?)
 * and the `terminal` (where the graph stopped). `--fail-provider offline` gave
 * verdict `answered` with terminal `escalate` and no claims — printed as
 * ESCALATED then ANSWERED, and shown on the website as a green "Answered"
 * banner. The outcome is the single reading of the pair.
 */
export const OUTCOMES = ['answered', 'partial', 'awaiting_approval', 'escalated', 'refused'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/**
 * The outcome of a run that stopped at `terminal` with the gate's `verdict`.
 * Total over every pair, including the ones the graph never produces, so a
 * stored row or a hand-made result can never be shown as something it is not:
 *
 * - the gate's refusal wins: no draft was written, so nothing can be answered
 *   (`refuse` always records `refused`; any other terminal with `refused` is a
 *   record that cannot have come from the graph and is read the safe way);
 * - `escalate`: the gate let the question through but no draft was verified —
 *   there are no claims, so it is not answered, whatever the verdict says;
 * - `await_approval`: a verified draft, held — not answered until a person
 *   approves (a new run, seed ADR-0006); a partial verdict stays on `verdict`;
 * - `emit`: the verified draft went out, answered or flagged partial.
 */
export function outcomeOf(verdict: Verdict, terminal: Terminal): Outcome {
  if (terminal === 'refuse' || verdict === 'refused') return 'refused';
  if (terminal === 'escalate') return 'escalated';
  if (terminal === 'await_approval') return 'awaiting_approval';
  return verdict === 'partial' ? 'partial' : 'answered';
}

/** Whether a run with this outcome shows a verified answer (its claims and footnotes). */
export function outcomeHasAnswer(outcome: Outcome): boolean {
  return outcome === 'answered' || outcome === 'partial' || outcome === 'awaiting_approval';
}

export interface OutcomeWords {
  /** The headline: read first, at 3am, and not to be mistaken for any other. */
  readonly title: string;
  /** One sentence on what it means and what to do. */
  readonly detail: string;
}

/**
 * The words for each outcome, the same on the CLI (upper-cased headline) and
 * the website (banner). A refusal is not a weak answer, a partial answer is
 * not a confident one, and a held or escalated run is not an answer at all.
 */
export const OUTCOME_WORDS: Readonly<Record<Outcome, OutcomeWords>> = {
  answered: {
    title: 'Answered',
    detail: 'The evidence cleared the gate and every claim cites a passage that states it.',
  },
  partial: {
    title: 'Partial — adjudicated, confirm before acting',
    detail: 'The evidence was ambiguous; one passage carried the answer on adjudication. Check the cited passages before acting on it.',
  },
  awaiting_approval: {
    title: 'Stopped for approval — nothing happens until a person approves',
    detail:
      'The answer is verified, but the proposed action is above the risk line. Approving creates a new run that points back at this one; this run is never resumed or edited.',
  },
  escalated: {
    title: 'Escalated — no answer; a person takes over',
    detail:
      'The evidence gate let the question through, but no draft could be verified against the passages (or no model could be called). Nothing here is an answer.',
  },
  refused: {
    title: 'Refused — the library does not answer this',
    detail: 'No draft was written: the passages found do not support an answer.',
  },
};

/**
 * A refusal's words by what it claims (S-108). `OUTCOME_WORDS.refused` said "the library does not answer this" over
 * every refusal, also where the reasons below it said the model was unsure and named the passage to read — on the
 * leave-one-corpus-out record most such refusals are of answerable questions. The headline now claims no more than the
 * gate knows: absence only where nothing matched or a reader read the passages (S-222: not on the model's rating alone).
 */
/** Every claim a refusal makes, for the contract's schema (the type is the decision's, `RefusalClaim`). */
export const REFUSAL_CLAIMS = ['absent', 'unsure', 'conflict', 'unread', 'unasked'] as const satisfies readonly RefusalClaim[];

const REFUSAL_WORDS: Readonly<Record<RefusalClaim, OutcomeWords>> = {
  absent: OUTCOME_WORDS.refused,
  unsure: {
    title: 'Refused — not answered: the model is unsure whether the library answers this',
    detail: 'No draft was written. The model could not tell whether the closest passage answers the question: read it before concluding the library is silent.',
  },
  conflict: {
    title: 'Refused — the library disagrees with itself',
    detail: 'No draft was written: the passages give different answers, and neither is given. Ask the owner which holds.',
  },
  unread: {
    title: 'Refused — not answered: the question has words the library’s index cannot read',
    detail:
      'No draft was written. The index reads English in plain letters (a–z, 0–9); judged on the rest of its words, the question could be answered about something else. Ask again in English, naming things as the library writes them.',
  },
  unasked: {
    title: 'Refused — not answered: the question names nothing to look for',
    detail:
      'No draft was written: the question names nothing to rate the library’s passages against, only what kind of question it is. Ask again naming the service, alert, symptom or value you mean.',
  },
};

/** The words a run shows: a refusal's by what it claims, every other outcome's own. A refusal without a claim (a run recorded before S-108) keeps the words it had. */
export function outcomeWords(outcome: Outcome, refusal?: RefusalClaim | null): OutcomeWords {
  return outcome === 'refused' && refusal ? REFUSAL_WORDS[refusal] : OUTCOME_WORDS[outcome];
}
