import type { LanguageModelV3 } from '@ai-sdk/provider';
import { readResultMetadata } from '../models/call-options.ts';
import { buildJudgementPrompt, type Judgement, parseJudgement } from '../models/prompt.ts';
import type { Chunk } from '../types.ts';
import type { Adjudication, Decision } from './decide.ts';
import { type AnswerabilityFeatures, passes } from './features.ts';

export interface ModelJudgementInput {
  readonly question: string;
  readonly features: AnswerabilityFeatures;
  /** The passage ratings of the decision under the adjudicated bands: they order the candidates. */
  readonly probabilities: readonly number[];
  /** That decision's own adjudication: what stands when no passage is a candidate. */
  readonly offline: Adjudication;
  readonly model: LanguageModelV3;
  /** The question decided offline, under the offline bands: what stands when no model judges. */
  readonly decideOffline: (features: AnswerabilityFeatures) => Decision;
}

export interface ModelJudgement {
  readonly adjudication: Adjudication;
  /** The provider whose judgement was taken, or null when none was (decided as offline). */
  readonly judgedBy: string | null;
  /** The passages the model was shown, by id: none only when nothing was retrieved, so no model was asked. */
  readonly shown: readonly string[];
}

/**
 * An LLM's judgement of a question in the ambiguous band (`ADJUDICATOR=model`): whether one of the passages the gate
 * read, the likeliest that fail no check first (S-092), answers it. Partial or refuse, never sufficient. Without a
 * usable judgement — every provider failed, only the offline model answered, the reply was not a judgement, or it
 * named a passage it was not shown — the question is decided as it would be offline: the adjudicator can only narrow
 * what is answered, never widen it. The graph's adjudicate node and `sandscope eval --adjudicator model` both call this, so the evaluation
 * scores the judgement the product takes.
 */
export async function judgeByModel(input: ModelJudgementInput): Promise<ModelJudgement> {
  const f = input.features;
  const candidates = candidatesOf(f, input.probabilities);
  const shown = candidates.map((c) => c.chunk.id);
  if (candidates.length === 0) return { adjudication: input.offline, judgedBy: null, shown: [] };
  const judgement = await judge(
    input.question,
    candidates.map((c) => c.chunk),
    input.model,
  );
  if ('unavailable' in judgement) {
    // Decided as offline, under the offline bands: what the run would have done without an adjudicator.
    const asOffline = input.decideOffline(f);
    const note = `No model judged this (${judgement.unavailable}); decided as offline.`;
    const carrier = asOffline.verdict === 'refused' ? null : (f.passages.find((p) => p.result.chunk.id === asOffline.evidence[0]?.id)?.result ?? null);
    const adjudication: Adjudication = carrier
      ? { decision: 'partial', carrier, reasons: [note, ...asOffline.reasons] }
      : { decision: 'refuse', carrier: null, reasons: [note, ...asOffline.reasons] };
    return { adjudication, judgedBy: null, shown };
  }
  const { verdict, servedBy } = judgement;
  const reason = verdict.reason.trim().slice(0, 300);
  if (!verdict.answers)
    return {
      adjudication: { decision: 'refuse', carrier: null, reasons: [`Adjudicated refuse by ${servedBy}: ${reason || 'no candidate answers the question'}.`] },
      judgedBy: servedBy,
      shown,
    };
  const carrier = candidates.find((c) => c.chunk.id === verdict.passage)!;
  return {
    adjudication: {
      decision: 'partial',
      carrier,
      reasons: [
        `Adjudicated partial by ${servedBy}: “${carrier.chunk.heading}” in ${carrier.chunk.docTitle} answers — ${reason}; flagged partial, never upgraded to sufficient.`,
      ],
    },
    judgedBy: servedBy,
    shown,
  };
}

/** A reader's reading of an answer the sufficient band gives without asking (S-096). */
export interface ModelConfirmation {
  /** The refusal when the reader found no passage answers; null when the answer stands. */
  readonly withheld: Adjudication | null;
  /** What the reader said, or why none judged: a reason the run keeps either way. */
  readonly note: string | null;
  /** The provider whose reading was taken, or null when none was (the answer stands, as offline). */
  readonly judgedBy: string | null;
  readonly shown: readonly string[];
}

/**
 * S-096: with a reader, an answer is read before it is given. The sufficient band answered without asking, and on the
 * record's groups nearly every false answer with a reader was one it was never shown: it refuses almost every
 * unanswerable question it reads. So the reader reads these too, with the prompt the ambiguous band sends (the same
 * passages in the same order): if it finds no passage answers, the answer is withheld; if it names one, or no model
 * judges, the answer stands as the gate chose it. It only narrows what is answered, never upgrades.
 */
export async function confirmByModel(input: Pick<ModelJudgementInput, 'question' | 'features' | 'probabilities' | 'model'>): Promise<ModelConfirmation> {
  const candidates = candidatesOf(input.features, input.probabilities);
  const shown = candidates.map((c) => c.chunk.id);
  if (candidates.length === 0) return { withheld: null, note: null, judgedBy: null, shown };
  const judgement = await judge(
    input.question,
    candidates.map((c) => c.chunk),
    input.model,
  );
  if ('unavailable' in judgement)
    return { withheld: null, note: `No model read this answer (${judgement.unavailable}); answered as offline.`, judgedBy: null, shown };
  const { verdict, servedBy } = judgement;
  const reason = verdict.reason.trim().slice(0, 300);
  if (verdict.answers) return { withheld: null, note: `Read by ${servedBy} before answering: ${reason || 'a passage answers'}.`, judgedBy: servedBy, shown };
  const withheld = `Answer withheld: ${servedBy} read the passages and found none answers — ${reason || 'no candidate answers the question'}.`;
  return { withheld: { decision: 'refuse', carrier: null, reasons: [withheld] }, note: withheld, judgedBy: servedBy, shown };
}

/** An answer as the reader's reading leaves it: refused when withheld, else the same answer with the reader's note. */
export function confirmed(decision: Decision, confirmation: ModelConfirmation): Decision {
  if (confirmation.withheld) return settled(decision, confirmation.withheld);
  return confirmation.note ? { ...decision, reasons: [...decision.reasons, confirmation.note] } : decision;
}

/**
 * Every passage the gate read, the likeliest that fail no check first (S-092). The checks are lexical (an entity in
 * the question's words, a value in digits) and the reader is briefed on the same failures, so a passage that fails
 * one is shown, not hidden: shown three (S-076), then the search's first as a fourth (S-086), nearly all its refusals
 * of answerable questions were of questions whose labelled passage it was never shown.
 */
function candidatesOf(f: AnswerabilityFeatures, probabilities: readonly number[]) {
  const likeliest = f.passages.map((_, i) => i).sort((a, b) => (probabilities[b] ?? 0) - (probabilities[a] ?? 0));
  const passing = likeliest.filter((i) => passes(f.passages[i]!, f));
  return [...passing, ...likeliest.filter((i) => !passing.includes(i))].map((i) => f.passages[i]!.result);
}

/**
 * A decision as its adjudication settles it: partial, answered from the passage the adjudication carries, or refused.
 * Never sufficient. The graph's adjudicate node and the evaluation both settle a judgement here, so the verdict the
 * evaluation counts is the one a run returns.
 */
export function settled(decision: Decision, adjudication: Adjudication): Decision {
  const carrier = adjudication.decision === 'partial' ? adjudication.carrier : null;
  return {
    ...decision,
    adjudication,
    verdict: carrier ? 'partial' : 'refused',
    reasons: [...decision.assessment.reasons, ...adjudication.reasons],
    evidence: carrier ? [carrier.chunk] : [],
  };
}

type JudgeOutcome = { verdict: Judgement; servedBy: string } | { unavailable: string };

async function judge(question: string, candidates: readonly Chunk[], model: LanguageModelV3): Promise<JudgeOutcome> {
  let result;
  try {
    result = await model.doGenerate({ prompt: buildJudgementPrompt({ question, candidates }), providerOptions: { sandscope: { judgement: true } } });
  } catch (error) {
    return { unavailable: error instanceof Error ? error.name : 'the call failed' };
  }
  const servedBy = readResultMetadata(result.providerMetadata).servedBy ?? 'a model';
  if (servedBy === 'offline') return { unavailable: 'only the offline model answered' };
  const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
  const verdict = parseJudgement(text);
  if (!verdict) return { unavailable: `${servedBy} replied with no judgement` };
  if (verdict.answers && !candidates.some((c) => c.id === verdict.passage)) return { unavailable: `${servedBy} named a passage it was not shown` };
  return { verdict, servedBy };
}
