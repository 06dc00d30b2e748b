import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { Pricing } from './pricing.ts';

/** A provider a priced model may serve a call from, and what it charges. */
export interface PricedCandidate {
  readonly name: string;
  readonly pricing: Pricing;
}

/**
 * The contract the spend guard wraps: a model that can say, before a call, which
 * priced providers could serve it, and after it, which one did. The router is
 * one; the guard needs nothing else of it, so a test (or another failover
 * strategy) can stand in without building a RouterModel (issue 13, item 5).
 *
 * A call carrying `providerOptions.sandscope.eligible` must be served only by
 * the candidates it names: that is what the guard's reservation covered (D-010).
 */
export interface PricedModel extends LanguageModelV3 {
  /** Candidates that could serve a call started now, in the order they would be tried. */
  servable(): readonly PricedCandidate[];
  /** What a candidate charges, by name; undefined for a name it does not have. */
  pricingOf(name: string): Pricing | undefined;
  /** The candidate that served the most recent call (per-call truth is in `providerMetadata.sandscope.servedBy`). */
  readonly lastServedBy: string | undefined;
}
