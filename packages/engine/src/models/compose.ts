import type { Workload } from '../types.ts';
import type { PromptMeter } from './prompt-meter.ts';
import type { ProviderHealth } from './provider-health.ts';
import { RouterModel, type ProviderEventSink, type RouterCandidate } from './router.ts';
import type { SecretScrubber } from './secret-scrubber.ts';
import { CachedModel, type CacheEventSink, type SemanticCache } from './semantic-cache.ts';
import type { SpendEventSink, SpendGuard } from './spend-guard.ts';
import type { SpendLedger } from './spend-ledger.ts';
import { SpendGuardedModel } from './spend-guarded-model.ts';

export interface RunModelSinks {
  readonly provider?: ProviderEventSink;
  readonly spend?: SpendEventSink;
  readonly cache?: CacheEventSink;
}

export interface ComposeRunModelOptions {
  /** In failover order, offline last (see providerConfigs). */
  readonly candidates: readonly RouterCandidate[];
  /** Process-wide; the same instance for every run. */
  readonly health: ProviderHealth;
  /** This run's injected failures only (T-6). */
  readonly failProviders?: ReadonlySet<string>;
  /** This run's budget. */
  readonly guard: SpendGuard;
  /** Process-wide: the deployment's daily ceiling, on a store every replica shares (DAILY_SPEND_CEILING_USD). */
  readonly ledger?: SpendLedger;
  /** Process-wide: what each provider bills per token of the prompt as sent (issue 12, defect 6). */
  readonly meter?: PromptMeter;
  /** Process-wide; the store behind it is shared. */
  readonly cache: SemanticCache;
  readonly corpusVersion: string;
  readonly workload: Workload;
  readonly sinks?: RunModelSinks;
  /** The deployment's configured secrets, scrubbed from provider messages (issue 12, defect 3). */
  readonly scrub?: SecretScrubber;
}

/** One run's model stack. `model` is what the graph calls; the layers are exposed for the trace. */
export interface RunModelStack {
  readonly model: CachedModel;
  readonly guarded: SpendGuardedModel;
  readonly router: RouterModel;
}

/**
 * Builds one run's model: cache(guard(router)). Call it inside the run (the
 * stream handler) and drop it when the run ends — the router carries this run's
 * injected failures and nothing else may see them (T-6).
 *
 * Why this order:
 * - The cache is outermost because a hit costs nothing: it must neither reserve
 *   budget nor touch a provider. A correction call skips the cache read (D-006)
 *   and goes on down like any miss.
 * - The guard sits directly on the router, not on each provider, because only
 *   the router knows which providers could still serve; the guard reserves once
 *   per call against the dearest of them before any failover can happen
 *   (D-010), and settles against whoever actually served.
 * - The router is innermost: it is the only layer that talks to providers.
 */
export function composeRunModel(options: ComposeRunModelOptions): RunModelStack {
  const router = new RouterModel({
    candidates: options.candidates,
    health: options.health,
    ...(options.failProviders ? { failProviders: options.failProviders } : {}),
    ...(options.sinks?.provider ? { onEvent: options.sinks.provider } : {}),
    ...(options.scrub ? { scrub: options.scrub } : {}),
  });
  const guarded = new SpendGuardedModel(router, options.guard, {
    ...(options.sinks?.spend ? { onEvent: options.sinks.spend } : {}),
    ...(options.meter ? { meter: options.meter } : {}),
    ...(options.ledger ? { ledger: options.ledger } : {}),
  });
  const model = new CachedModel(guarded, options.cache, {
    corpusVersion: options.corpusVersion,
    workload: options.workload,
    // T-6: a run with injected failures neither reads the shared cache (it is there to meet the router) nor writes it
    // (another visitor would be served its degraded answer).
    injectedFailures: options.candidates.some((c) => options.failProviders?.has(c.name)),
    ...(options.sinks?.cache ? { onEvent: options.sinks.cache } : {}),
  });
  return { model, guarded, router };
}
