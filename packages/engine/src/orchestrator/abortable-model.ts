import type { LanguageModelV3, LanguageModelV3CallOptions } from '@ai-sdk/provider';
import type { RunModel } from './model-factory.ts';

/**
 * One run's model, stoppable from outside the run: every call carries `signal`
 * (with any signal of the call's own) as its `abortSignal`, and a call made
 * after it aborted throws its reason before reaching the cache, the spend guard
 * or a provider.
 *
 * S-258: a replica shutting down had no way to stop a run waiting on a slow
 * provider, so the run outlived the store, the limiter and the spend ledger and
 * failed writing to them, its spend hold left to expire. The abort reaches the
 * provider's request (fetchWithTimeout passes a caller's abort through untouched,
 * and the router does not fail over from it), so the call ends now and the spend
 * guard settles its hold while the ledger is still open. Set on the run's model,
 * not by each node, so no node can forget it.
 */
export function abortableRunModel(run: RunModel, signal: AbortSignal): RunModel {
  const inner = run.model;
  const withSignal = (options: LanguageModelV3CallOptions): LanguageModelV3CallOptions => {
    signal.throwIfAborted();
    return { ...options, abortSignal: options.abortSignal ? AbortSignal.any([options.abortSignal, signal]) : signal };
  };
  const model: LanguageModelV3 = {
    specificationVersion: inner.specificationVersion,
    provider: inner.provider,
    modelId: inner.modelId,
    supportedUrls: inner.supportedUrls,
    doGenerate: async (options) => inner.doGenerate(withSignal(options)),
    doStream: async (options) => inner.doStream(withSignal(options)),
  };
  const commit = run.commitCacheWrite?.bind(run);
  return { model, spend: () => run.spend(), ...(commit ? { commitCacheWrite: commit } : {}) };
}
