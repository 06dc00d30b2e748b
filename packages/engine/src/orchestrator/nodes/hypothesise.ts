import { readResultMetadata } from '../../models/call-options.ts';
import { buildDraftPrompt, parseDraft } from '../../models/prompt.ts';
import { ATTEMPT_ERROR_CODES, errorCodeOf } from '../../errors.ts';
import type { CacheRunEvent } from '../events.ts';
import type { NodeSpec } from '../node-context.ts';
import type { Attempt } from '../state.ts';

const money = (n: number) => Math.round(n * 1e9) / 1e9;

/**
 * hypothesise: one model call for a cited draft, through the prompt contract
 * (models/prompt.ts) with the workload's system prompt and the evidence
 * passages, the carrier first.
 *
 * A retry carries the verifier's feedback naming each failing claim and why
 * (D-005: a retry that re-sends the identical prompt can never succeed), and is
 * marked `providerOptions.sandscope.correction` so the semantic cache never
 * answers it with the draft that just failed (D-006).
 *
 * A budget refusal or every provider failing is recorded as a failed attempt,
 * not thrown: no retry inside this run can fix either, so verify escalates.
 */
export const hypothesise: NodeSpec = {
  id: 'hypothesise',
  async run(state, { model, workloads, trace }) {
    const attempt = state.attempts.length + 1;
    const feedback = attempt > 1 ? [...(state.feedback ?? [])] : [];
    const correction = attempt > 1;
    const prompt = buildDraftPrompt({
      system: workloads[state.workload].systemPrompt,
      question: state.question,
      passages: state.evidence,
      ...(feedback.length > 0 ? { feedback } : {}),
    });
    const spentBefore = model.spend().spentUsd;
    const traceBefore = trace.events.length;
    const cacheOutcome = (): string | null => {
      const events = trace.events.slice(traceBefore).filter((e): e is CacheRunEvent => e.type === 'cache');
      const read = events.find((e) => e.event.kind === 'hit' || e.event.kind === 'miss' || e.event.kind === 'bypass');
      if (!read) return null;
      return read.event.kind === 'hit' ? `hit:${read.event.match}` : read.event.kind;
    };
    const base = { attempt, correction, feedback };

    let result;
    try {
      // The cache holds this draft until verify passes it (S-012): a draft that fails
      // the citation check must never be served to the next run of the same question.
      result = await model.model.doGenerate({
        prompt,
        providerOptions: { sandscope: correction ? { correction: true, deferCacheWrite: true } : { deferCacheWrite: true } },
      });
    } catch (error) {
      // A refused or failed call ends this attempt, not the run (the graph escalates); anything else is a bug. The shared
      // ledger unreachable is the same for this run: the call was not made, and no retry here can book it.
      const code = errorCodeOf(error);
      if (code === undefined || !(ATTEMPT_ERROR_CODES as readonly string[]).includes(code)) throw error;
      const failed: Attempt = {
        ...base,
        provider: null,
        cache: cacheOutcome(),
        tokensIn: 0,
        tokensOut: 0,
        costUsd: money(model.spend().spentUsd - spentBefore),
        claims: null,
        error: { code, message: (error as Error).message },
      };
      return { attempts: [failed], draft: null };
    }

    const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
    const claims = parseDraft(text);
    const meta = readResultMetadata(result.providerMetadata);
    const done: Attempt = {
      ...base,
      provider: meta.servedBy ?? model.model.provider,
      cache: cacheOutcome(),
      tokensIn: result.usage.inputTokens.total ?? 0,
      tokensOut: result.usage.outputTokens.total ?? 0,
      costUsd: money(model.spend().spentUsd - spentBefore),
      claims,
      ...(meta.cacheWriteToken ? { cacheWriteToken: meta.cacheWriteToken } : {}),
      ...(meta.cacheKey ? { cacheKey: meta.cacheKey } : {}),
    };
    return { attempts: [done], draft: claims };
  },
  summarise: (update) => {
    const a = update.attempts?.[0];
    return {
      attempt: a?.attempt,
      correction: a?.correction,
      provider: a?.provider,
      tokensIn: a?.tokensIn,
      tokensOut: a?.tokensOut,
      costUsd: a?.costUsd,
      claims: a?.claims?.length ?? null,
      cache: a?.cache,
      ...(a?.cacheKey ? { cacheKey: a.cacheKey } : {}),
      ...(a?.feedback.length ? { feedback: a.feedback } : {}),
      ...(a?.error ? { error: a.error } : {}),
    };
  },
};
