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
  const { probabilities } = input;
  const likeliest = f.passages.map((_, i) => i).sort((a, b) => (probabilities[b] ?? 0) - (probabilities[a] ?? 0));
  const passing = likeliest.filter((i) => passes(f.passages[i]!, f));
  // Every passage the gate read, the likeliest that fail no check first (S-092). The checks are lexical (an entity in
  // the question's words, a value in digits) and the reader is briefed on the same failures, so a passage that fails
  // one is shown, not hidden: shown three (S-076), then the search's first as a fourth (S-086), nearly all its refusals
  // of answerable questions were of questions whose labelled passage it was never shown.
  const chosen = [...passing, ...likeliest.filter((i) => !passing.includes(i))];
  const candidates = chosen.map((i) => f.passages[i]!.result);
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
