export { buildDraftPrompt, parseDraftPrompt, parseDraft, DRAFT_RULES, type DraftPromptInput, type ParsedDraftPrompt } from './prompt.ts';
export { OfflineExtractiveModel } from './offline-model.ts';
export {
  KNOWN_PROVIDERS,
  OFFLINE_PROVIDER,
  providerConfigs,
  createHttpModel,
  candidatesFromConfigs,
  type HttpProviderName,
  type HttpProviderConfig,
  type OfflineProviderConfig,
  type ProviderConfig,
  type KnownProvider,
  type ProviderSetting,
  type ProviderSettings,
  type HttpModelOptions,
} from './providers.ts';
export { fetchWithTimeout, type FetchFunction } from './timeout-fetch.ts';
export { ProviderHealth, retryAfterSeconds, type Clock, type ProviderHealthOptions } from './provider-health.ts';
export {
  RouterModel,
  AllProvidersFailedError,
  type RouterCandidate,
  type RouterOptions,
  type ProviderEvent,
  type ProviderEventKind,
  type ProviderEventSink,
  type ProviderFailure,
} from './router.ts';
export type { PricedModel, PricedCandidate } from './priced-model.ts';
export { SpendGuardedModel, type SpendGuardedModelOptions } from './spend-guarded-model.ts';
export {
  SpendGuard,
  BudgetExceededError,
  InvalidBudgetError,
  callCost,
  type Reservation,
  type BudgetExceededDetails,
  type BudgetRefusal,
  type SpendGuardOptions,
  type SpendEvent,
  type SpendEventSink,
} from './spend-guard.ts';
export {
  CeilingInForce,
  InProcessSpendLedger,
  SpendLedgerUnavailableError,
  DEFAULT_HOLD_TTL_MS,
  NANO_PER_USD,
  assertLedgerAmount,
  assertLedgerCeiling,
  nanoDown,
  nanoUp,
  utcDayOf,
  type SpendLedger,
  type SpendLedgerOptions,
  type SpendLedgerUsage,
  type LedgerHold,
} from './spend-ledger.ts';
export type { CacheCandidate, CacheEntry, CacheStore } from './cache-store.ts';
export { decodeVector, encodeVector } from './vector-code.ts';
export { InMemoryCacheStore } from './in-memory-cache-store.ts';
export {
  SemanticCache,
  CachedModel,
  type CacheScope,
  type CacheLookup,
  type CacheHit,
  type CacheEvent,
  type CacheEventSink,
  type CachedModelOptions,
  type SemanticCacheOptions,
} from './semantic-cache.ts';
export { createSecretScrubber, scrubDeep, REDACTED, MIN_SCRUBBED_SECRET_CHARS, type SecretScrubber } from './secret-scrubber.ts';
export {
  describeProviderError,
  excerptOf,
  MAX_PROVIDER_EXCERPT_CHARS,
  type ProviderErrorClass,
  type ProviderErrorReport,
} from './provider-error.ts';
export { PromptMeter } from './prompt-meter.ts';
export { composeRunModel, type ComposeRunModelOptions, type RunModelStack, type RunModelSinks } from './compose.ts';
export {
  FREE,
  perMillionTokens,
  estimateTokens,
  promptTokenBound,
  utf8Bytes,
  promptText,
  tokenUsage,
  usageCostUsd,
  type Pricing,
} from './pricing.ts';
export {
  sandscopeOptions,
  withSandscopeOptions,
  readResultMetadata,
  type SandscopeCallOptions,
  type SandscopeResultMetadata,
} from './call-options.ts';
export { textToStream, drainStream } from './text-stream.ts';
