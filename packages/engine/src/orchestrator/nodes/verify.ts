import { checkDraft, feedbackFor, type Verification } from '../citation-check.ts';
import type { NodeSpec } from '../node-context.ts';

/**
 * verify: the citation check on the latest draft (citation-check.ts). A pass
 * fixes the verified claims; a failure produces the feedback the next
 * hypothesise must carry (D-005). Where the run goes next is the graph's
 * routing: retry while attempts remain, else escalate.
 */
export const verify: NodeSpec = {
  id: 'verify',
  async run(state, { model }) {
    const last = state.attempts[state.attempts.length - 1];
    if (!last) throw new Error('verify: no draft attempt in state');
    const verification: Verification = last.error
      ? { ok: false, failures: [{ claim: 0, text: '', reasons: [`the model call failed and cannot be retried in this run: ${last.error.message}`] }] }
      : checkDraft(state.draft, state.evidence);
    // Only a verified draft earns a cache entry (S-012).
    if (verification.ok && last.cacheWriteToken) await model.commitCacheWrite?.(last.cacheWriteToken);
    return {
      verifications: [verification],
      feedback: feedbackFor(verification),
      claims: verification.ok ? [...(state.draft ?? [])] : [],
    };
  },
  summarise: (update, state) => {
    const v = update.verifications?.[0];
    return {
      ok: v?.ok,
      attempt: state.attempts.length,
      failing: (v?.failures ?? []).map((f) => ({ claim: f.claim, text: f.text, reasons: f.reasons })),
    };
  },
};
