import type { Estate } from '../corpus/estate.ts';
import { footnoteIds, footnoteMarks } from '../answer/footnotes.ts';
import type { Claim, Verdict, Workload } from '../types.ts';
import { actionIntent } from './action-intent.ts';
import { LOOKUP_WORDING, type RiskAssessment, type RiskInput, type RiskWeights, scoreRisk, servicesNamed } from './risk-scorer.ts';

/** What propose_action hands to the risk gate: words only. No tool ever acts on a real system (T-11). */
export interface ProposedAction {
  /** `change`: the change under review; `advisory`: text for a person to act on, or not. */
  readonly kind: 'advisory' | 'change';
  readonly text: string;
}

export interface ActionInput {
  readonly question: string;
  /** Verified claims only: each has a citation that resolved and numbers that stand in it. */
  readonly claims: readonly Claim[];
  readonly verdict: Verdict;
}

/**
 * A workload is data, not a branch. Incident triage, change review and
 * postmortem drafting run on the same compiled graph and differ only in these
 * fields; a second graph would disprove the workload-agnosticism the first is
 * meant to demonstrate (seed §Four).
 */
export interface WorkloadDefinition {
  readonly id: Workload;
  readonly title: string;
  /** Prepended to the prompt contract's rules (models/prompt.ts). */
  readonly systemPrompt: string;
  /**
   * The retrieval query. It may only ADD estate-derived context to the
   * question; the evidence gate still scores what was found against the
   * question itself (see nodes/retrieve.ts).
   */
  readonly queryBuilder: (question: string, estate: Estate | null) => string;
  readonly riskScorer: (input: RiskInput) => RiskAssessment;
  readonly proposeAction: (input: ActionInput) => ProposedAction;
}

/** Faults whose symptom signal (an alert name, a log line) or name the text mentions. */
function faultsSignalled(text: string, estate: Estate | null) {
  if (!estate) return [];
  const lower = text.toLowerCase();
  return estate.faults.filter((f) => lower.includes(f.name.toLowerCase()) || f.signals.some((s) => lower.includes(s.toLowerCase())));
}

function withContext(question: string, context: readonly string[]): string {
  const extra = [...new Set(context)].filter((c) => !question.toLowerCase().includes(c.toLowerCase()));
  return extra.length ? `${question}\n${extra.join(' ')}` : question;
}

/**
 * Where the action's substance is: the verified answer, referred to — not
 * repeated. Every run that proposes an action also shows its answer, so
 * restating each claim with its raw chunk ids made the answer read twice
 * (issue 13); the footnote numbers are the answer's own (footnoteIds).
 */
function theAnswerCited(claims: readonly Claim[]): string {
  const order = footnoteIds(claims);
  return `the answer above (${claims.length} point${claims.length === 1 ? '' : 's'}, cited ${footnoteMarks(order, order)})`;
}

/**
 * What triage advises doing with its answer. Steps are acted on in their order; a value, a meaning or an impact is
 * not a thing to do. "What is the pool ceiling for orders-db?" was advised to "act on the answer above (2 points),
 * in its order" while its risk factors said the same question proposes no action (S-150).
 */
function triageAdvice(question: string, claims: readonly Claim[]): string {
  const ask = actionIntent(question);
  if (ask.asks === 'act' || ask.intent === 'procedure' || ask.intent === 'diagnosis') return `Act on ${theAnswerCited(claims)}, in its order.`;
  return `Nothing to do but read ${theAnswerCited(claims)}: the question ${LOOKUP_WORDING[ask.intent]}, and no step is proposed.`;
}

const PARTIAL_NOTE = 'PARTIAL: adjudicated from ambiguous evidence — confirm against the cited passages before acting on it.';

/** Advisory workloads stop only when the question asks to act on a service that matters (anything but a tier-4 leaf). */
const ADVISORY_WEIGHTS: RiskWeights = { tier: 0.25, blastRadius: 0.15, act: 0.45 };

/** A change to a tier-1 service is heavy on tier alone (0.55); any look-up is capped well below the line (LOOKUP_CEILING). */
const CHANGE_WEIGHTS: RiskWeights = { tier: 0.55, blastRadius: 0.15, act: 0.3 };

export const TRIAGE: WorkloadDefinition = {
  id: 'triage',
  title: 'Incident triage',
  systemPrompt: [
    "You are Sandscope's incident triage assistant for an on-call engineer in the middle of an incident.",
    'State what the passages say about the symptom, the service and the documented values, and which runbook steps apply, in the order a responder would take them.',
    'You advise; you cannot act on any system. Do not invent steps, numbers or service names the passages do not contain.',
  ].join(' '),
  // The runbook for a fault is named for the fault, not for its alert: add the fault's name when a signal is quoted.
  queryBuilder: (question, estate) =>
    withContext(
      question,
      faultsSignalled(question, estate).map((f) => f.name),
    ),
  riskScorer: (input) => scoreRisk(input, ADVISORY_WEIGHTS),
  proposeAction: ({ question, claims, verdict }) => ({
    kind: 'advisory',
    text: [
      `Triage advice for: ${question}`,
      ...(verdict === 'partial' ? [PARTIAL_NOTE] : []),
      triageAdvice(question, claims),
      'Advisory text only — Sandscope executes nothing; the responder decides.',
    ].join('\n'),
  }),
};

export const CHANGE: WorkloadDefinition = {
  id: 'change',
  title: 'Change review',
  systemPrompt: [
    "You are Sandscope's change reviewer.",
    'State what the passages require of the change in the question: approvals, deployment windows, freezes, staged rollout, observation, rollback, and the documented limits of the services it touches.',
    'Do not approve or reject the change; a human decides. Do not invent requirements the passages do not state.',
  ].join(' '),
  // A change review must read the change policy for the service's tier, which names tiers, not services.
  queryBuilder: (question, estate) => withContext(question, ['change', ...servicesNamed(question, estate).map((s) => `tier ${s.tier}`)]),
  riskScorer: (input) => scoreRisk(input, CHANGE_WEIGHTS),
  proposeAction: ({ question, claims, verdict }) => ({
    kind: 'change',
    text: [
      `Change under review: ${question}`,
      ...(verdict === 'partial' ? [PARTIAL_NOTE] : []),
      `What the library requires of it: ${theAnswerCited(claims)}.`,
      'Sandscope executes nothing; the change proceeds only if a person carries it out.',
    ].join('\n'),
  }),
};

export const POSTMORTEM: WorkloadDefinition = {
  id: 'postmortem',
  title: 'Postmortem drafting',
  systemPrompt: [
    "You are Sandscope's postmortem drafter.",
    'From the passages, state the facts of the incident in the question: timeline, impact, cause, detection and the actions agreed.',
    'Blameless and factual: no speculation beyond the passages, no names of people.',
  ].join(' '),
  queryBuilder: (question, estate) => withContext(question, ['postmortem', ...faultsSignalled(question, estate).map((f) => f.name)]),
  riskScorer: (input) => scoreRisk(input, ADVISORY_WEIGHTS),
  proposeAction: ({ question, claims, verdict }) => ({
    kind: 'advisory',
    text: [
      `Postmortem draft for: ${question}`,
      ...(verdict === 'partial' ? [PARTIAL_NOTE] : []),
      `The facts: ${theAnswerCited(claims)}.`,
      'Draft text only — for the incident owner to review and publish.',
    ].join('\n'),
  }),
};

/** Every workload, by id. The graph looks a run's workload up here; it never branches on which one it is. */
export const WORKLOADS: Readonly<Record<Workload, WorkloadDefinition>> = {
  triage: TRIAGE,
  change: CHANGE,
  postmortem: POSTMORTEM,
};

export { DEFAULT_WORKLOAD, isWorkload, parseWorkload, WORKLOAD_IDS } from './workload-id.ts';
