import type { LanguageModelV3 } from '@ai-sdk/provider';
import { composeRunModel, type RunModelSinks } from '../models/compose.ts';
import { PromptMeter } from '../models/prompt-meter.ts';
import type { ProviderHealth } from '../models/provider-health.ts';
import type { RouterCandidate } from '../models/router.ts';
import type { SecretScrubber } from '../models/secret-scrubber.ts';
import type { SemanticCache } from '../models/semantic-cache.ts';
import { SpendGuard } from '../models/spend-guard.ts';
import type { SpendLedger } from '../models/spend-ledger.ts';
import type { Workload } from '../types.ts';

/** A run's money so far; `ceilingUsd` is null when the run's model has no spend guard (a test double). */
export interface RunSpend {
  readonly reservedUsd: number;
  readonly spentUsd: number;
  readonly ceilingUsd: number | null;
}

/** The model one run calls, and a view of what it has spent. */
export interface RunModel {
  readonly model: LanguageModelV3;
  spend(): RunSpend;
  /** Store a held cache write once its draft is verified (S-012); absent when the run has no cache. */
  commitCacheWrite?(token: string): Promise<void>;
}

export interface RunModelRequest {
  readonly runId: string;
  readonly workload: Workload;
  readonly corpusVersion: string;
  /** This run's injected provider failures only (T-6). */
  readonly failProviders: ReadonlySet<string>;
  /** Where the router, guard and cache report: the run's trace. */
  readonly sinks: RunModelSinks;
}

/**
 * Builds one run's model. Called once per run, inside the run, and the result
 * dropped when it ends — injected failures and the run's budget live in it and
 * must not outlive it (T-6).
 */
export type RunModelFactory = (request: RunModelRequest) => RunModel;

export interface StackModelFactoryOptions {
  /** In failover order, offline last (providerConfigs + candidatesFromConfigs). */
  readonly candidates: readonly RouterCandidate[];
  /** Process-wide cooldowns. */
  readonly health: ProviderHealth;
  /** Process-wide cache. */
  readonly cache: SemanticCache;
  /** Each run's ceiling (RUN_BUDGET_USD). */
  readonly budgetUsd: number;
  /**
   * Each run's token allowance (RUN_TOKEN_BUDGET): what the service reserves from
   * the client's daily ceiling when it admits a run (issue 12, defect 1). The
   * run's guard makes no call that could take it past this, so a run never uses
   * more than was reserved for it. Unbounded when absent (the CLI).
   */
  readonly runTokenBudget?: number;
  /** The deployment's configured secrets, scrubbed from provider messages (issue 12, defect 3). */
  readonly scrub?: SecretScrubber;
  /** The deployment's daily ceiling, shared by every replica (DAILY_SPEND_CEILING_USD); absent, only each run's ceiling applies. */
  readonly ledger?: SpendLedger;
}

/** The production factory: cache(guard(router)) per run, from the models package's composeRunModel. */
export function stackModelFactory(options: StackModelFactoryOptions): RunModelFactory {
  const guardOptions = options.runTokenBudget !== undefined ? { tokenCeiling: options.runTokenBudget } : {};
  // Fail at construction, not mid-run, for a ceiling that bounds nothing (D-007).
  void new SpendGuard(options.budgetUsd, guardOptions);
  // Defect 6: process-wide, like the cooldowns — a provider that billed one run more than its prompt could
  // contain is priced at what it bills for every run after.
  const meter = new PromptMeter();
  return (request) => {
    const guard = new SpendGuard(options.budgetUsd, guardOptions);
    const stack = composeRunModel({
      meter,
      candidates: options.candidates,
      health: options.health,
      failProviders: request.failProviders,
      guard,
      cache: options.cache,
      corpusVersion: request.corpusVersion,
      workload: request.workload,
      sinks: request.sinks,
      ...(options.scrub ? { scrub: options.scrub } : {}),
      ...(options.ledger ? { ledger: options.ledger } : {}),
    });
    return {
      model: stack.model,
      spend: () => ({ reservedUsd: guard.reserved, spentUsd: guard.spent, ceilingUsd: guard.ceilingUsd }),
      commitCacheWrite: (token) => stack.model.commit(token),
    };
  };
}

/** One bare model for every run, no cache, guard or router — for tests that are about the graph, not the stack. */
export function bareModelFactory(model: LanguageModelV3): RunModelFactory {
  return () => ({ model, spend: () => ({ reservedUsd: 0, spentUsd: 0, ceilingUsd: null }) });
}
