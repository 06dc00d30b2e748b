import type { Adjudication } from '../../answerability/decide.ts';
import { offerLines } from '../../answerability/ask-again.ts';
import { adjudicationOffline, confirmByModel, DEEPER_DEPTH, judgeByModel, settled, withheldReasons } from '../../answerability/model-judgement.ts';
import type { ScoredChunk } from '../../types.ts';
import type { NodeContext, NodeSpec } from '../node-context.ts';
import type { RunState, RunUpdate } from '../state.ts';

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
 * likeliest passages answers (`judgeByModel`, which `eval --adjudicator model`
 * scores too). With a reader the sufficient band comes here as well, and the
 * reader reads the answer before it is given (`confirmByModel`, S-096): it may
 * withhold it, never upgrade anything. Before the reader refuses either, it reads
 * the search's next passages (S-097).
 */
export const adjudicateNode: NodeSpec = {
  id: 'adjudicate',
  async run(state, ctx) {
    // S-096: with a reader, the sufficient band comes here too, and the reader reads the answer before it is given.
    if (state.assessment?.band === 'sufficient') return read(state, ctx);
    if (!state.decision) throw new Error('adjudicate: no decision');
    // Below the lower line (read only with a reader, S-100) the decision carries no adjudication: a refusal stands.
    const offline = adjudicationOffline(state.decision);
    const adjudication = ctx.adjudication === 'model' ? await judged(state, ctx, offline) : offline;
    return applied(adjudication, state);
  },
  summarise: (update) => ({
    decision: update.adjudication?.decision ?? 'answer stands',
    reasons: update.reasons,
    carrier: update.adjudication?.carrier?.chunk.id ?? null,
    ...(update.refusal ? { refusal: update.refusal } : {}),
  }),
};

function applied(adjudication: Adjudication, state: RunState): RunUpdate {
  const { verdict, evidence, refusal } = settled(state.decision!, adjudication);
  // S-180: a reader's refusal offers the slips it left as typed, as an offline one does (S-179), unless assess_evidence's reasons already did.
  const offers = verdict === 'refused' ? offerLines(state.features?.nearMisses ?? []).filter((line) => !state.reasons.includes(line)) : [];
  // The carrier leads the evidence; the workload's context passages follow it.
  return {
    adjudication,
    verdict,
    refusal,
    reasons: [...adjudication.reasons, ...offers],
    evidence: verdict === 'partial' ? [...evidence, ...(state.context ?? [])] : [],
  };
}

async function judged(state: RunState, ctx: NodeContext, offline: Adjudication): Promise<Adjudication> {
  if (!state.features) return offline;
  const judgement = await judgeByModel({
    question: state.question,
    features: state.features,
    probabilities: state.decision!.assessment.probabilities,
    offline,
    model: ctx.model.model,
    // Decided offline, in a run that has a reader: it neither advises configuring one nor leaves its bands unnamed (S-252, S-254).
    decideOffline: (f) => ctx.kb.decide(f, ctx.kb.model, 'offline', ctx.adjudication),
    deeper: deeperOf(state, ctx),
  });
  return judgement.adjudication;
}

/** The question's search to `DEEPER_DEPTH`, run only when the reader finds none of the gate's passages answers (S-097). */
function deeperOf(state: RunState, ctx: NodeContext): () => Promise<readonly ScoredChunk[]> {
  return async () => (await ctx.kb.retrieve(state.question, DEEPER_DEPTH)).results;
}

/**
 * An answer of the sufficient band, read by the reader: withheld (refused, or partial from the passage it names: another
 * the gate read, S-098, or one further down, S-097) or left as it was.
 */
async function read(state: RunState, ctx: NodeContext): Promise<RunUpdate> {
  if (!state.features || !state.decision) throw new Error('adjudicate: no decision to read');
  const confirmation = await confirmByModel({
    question: state.question,
    features: state.features,
    probabilities: state.decision.assessment.probabilities,
    evidence: state.decision.evidence,
    model: ctx.model.model,
    deeper: deeperOf(state, ctx),
  });
  if (confirmation.withheld) {
    // S-253: the reader's reason leads, and the gate's answer reasons follow marked as said before it: the refusal's
    // first reason, and its answer text, read "Answered from …".
    const update = applied(confirmation.withheld, state);
    return { ...update, reasons: withheldReasons(state.reasons, update.reasons ?? []), restatesReasons: true };
  }
  return { reasons: confirmation.note ? [confirmation.note] : [] };
}
