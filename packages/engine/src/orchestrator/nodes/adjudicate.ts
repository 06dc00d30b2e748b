import type { Adjudication } from '../../answerability/decide.ts';
import { passes } from '../../answerability/features.ts';
import { readResultMetadata } from '../../models/call-options.ts';
import { buildJudgementPrompt, type Judgement, parseJudgement } from '../../models/prompt.ts';
import type { Chunk } from '../../types.ts';
import type { NodeContext, NodeSpec } from '../node-context.ts';
import type { RunState, RunUpdate } from '../state.ts';

/** Candidates an adjudicator reads: the likeliest passages that fail no check (a model may never overrule a check). */
const CANDIDATES = 3;

/**
 * adjudicate: the explicit step for the ambiguous band. It lets an answer
 * through flagged PARTIAL — a flag that stays on the run to its result — or
 * refuses. It never upgrades to sufficient.
 *
 * Offline (the default), the decision was taken once by assess_evidence (one
 * function for the engine and the evaluation) and this node applies its
 * adjudication. With `ADJUDICATOR=model` the band is wider (the model's
 * `adjudicatedBands`: where the answerability model is unsure) and an LLM,
 * through this run's router, spend guard and trace, judges whether one of the
 * likeliest passages answers. Without a usable judgement — every provider
 * failed, only the offline model answered, the reply was not a judgement, or it
 * named a passage it was not shown — the question is decided as it would be
 * offline: the adjudicator can only narrow what is answered, never widen it.
 */
export const adjudicateNode: NodeSpec = {
  id: 'adjudicate',
  async run(state, ctx) {
    const offline = state.decision?.adjudication;
    if (!offline) throw new Error('adjudicate: no adjudication in the decision');
    const adjudication = ctx.adjudication === 'model' ? await judged(state, ctx, offline) : offline;
    return applied(adjudication, state);
  },
  summarise: (update) => ({
    decision: update.adjudication?.decision,
    reasons: update.reasons,
    carrier: update.adjudication?.carrier?.chunk.id ?? null,
  }),
};

function applied(adjudication: Adjudication, state: RunState): RunUpdate {
  if (adjudication.decision === 'partial' && adjudication.carrier) {
    // The carrier leads the evidence; the workload's context passages follow it.
    return { adjudication, verdict: 'partial', reasons: [...adjudication.reasons], evidence: [adjudication.carrier.chunk, ...(state.context ?? [])] };
  }
  return { adjudication, verdict: 'refused', reasons: [...adjudication.reasons], evidence: [] };
}

async function judged(state: RunState, ctx: NodeContext, offline: Adjudication): Promise<Adjudication> {
  const f = state.features;
  const decision = state.decision!;
  if (!f) return offline;
  const order = f.passages.map((_, i) => i).sort((a, b) => (decision.assessment.probabilities[b] ?? 0) - (decision.assessment.probabilities[a] ?? 0));
  const candidates = order
    .filter((i) => passes(f.passages[i]!, f))
    .slice(0, CANDIDATES)
    .map((i) => f.passages[i]!.result);
  if (candidates.length === 0) return offline;
  const judgement = await judge(
    state.question,
    candidates.map((c) => c.chunk),
    ctx,
  );
  if ('unavailable' in judgement) {
    // Decided as offline, under the offline bands: what the run would have done without an adjudicator.
    const asOffline = ctx.kb.decide(f);
    const note = `No model judged this (${judgement.unavailable}); decided as offline.`;
    if (asOffline.verdict === 'refused') return { decision: 'refuse', carrier: null, reasons: [note, ...asOffline.reasons] };
    const carrier = f.passages.find((p) => p.result.chunk.id === asOffline.evidence[0]?.id)?.result ?? null;
    return carrier
      ? { decision: 'partial', carrier, reasons: [note, ...asOffline.reasons] }
      : { decision: 'refuse', carrier: null, reasons: [note, ...asOffline.reasons] };
  }
  const { verdict, servedBy } = judgement;
  const reason = verdict.reason.trim().slice(0, 300);
  if (!verdict.answers)
    return { decision: 'refuse', carrier: null, reasons: [`Adjudicated refuse by ${servedBy}: ${reason || 'no candidate answers the question'}.`] };
  const carrier = candidates.find((c) => c.chunk.id === verdict.passage)!;
  return {
    decision: 'partial',
    carrier,
    reasons: [
      `Adjudicated partial by ${servedBy}: “${carrier.chunk.heading}” in ${carrier.chunk.docTitle} answers — ${reason}; flagged partial, never upgraded to sufficient.`,
    ],
  };
}

type JudgeOutcome = { verdict: Judgement; servedBy: string } | { unavailable: string };

async function judge(question: string, candidates: readonly Chunk[], ctx: NodeContext): Promise<JudgeOutcome> {
  let result;
  try {
    result = await ctx.model.model.doGenerate({ prompt: buildJudgementPrompt({ question, candidates }), providerOptions: { sandscope: { judgement: true } } });
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
