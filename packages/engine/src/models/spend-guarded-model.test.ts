import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { sandscopeOptions } from './call-options.ts';
import type { PricedCandidate, PricedModel } from './priced-model.ts';
import { callCost, SpendGuard, type SpendEvent } from './spend-guard.ts';
import { SpendGuardedModel } from './spend-guarded-model.ts';
import { perMillionTokens, tokenUsage } from './pricing.ts';
import { ScriptedModel } from './testing/scripted-model.ts';

const call: LanguageModelV3CallOptions = { prompt: [{ role: 'user', content: [{ type: 'text', text: 'q' }] }], maxOutputTokens: 500 };
const INPUT_TOKENS = 1_000;

/**
 * A priced model that is not the router: a fixed pair of candidates, served by
 * the named one. The guard must need nothing more of what it wraps (issue 13, item 5).
 */
class FixedPricedModel extends ScriptedModel implements PricedModel {
  lastServedBy: string | undefined;
  constructor(
    private readonly candidates: readonly PricedCandidate[],
    private readonly servedBy: string,
  ) {
    super('fixed', [{ kind: 'text', text: 'answer', usage: tokenUsage(INPUT_TOKENS, 400) }]);
  }
  servable(): readonly PricedCandidate[] {
    return this.candidates;
  }
  pricingOf(name: string) {
    return this.candidates.find((c) => c.name === name)?.pricing;
  }
  override async doGenerate(options: LanguageModelV3CallOptions) {
    const result = await super.doGenerate(options);
    this.lastServedBy = this.servedBy;
    return result;
  }
}

describe('SpendGuardedModel over any PricedModel', () => {
  it('reserves at the dearest servable candidate, tells the model which it covered, and settles at the one that served', async () => {
    const cheap = { name: 'cheap', pricing: perMillionTokens(0.05, 0.08) };
    const dear = { name: 'dear', pricing: perMillionTokens(0.3, 2.5) };
    const inner = new FixedPricedModel([cheap, dear], 'cheap');
    const guard = new SpendGuard(0.02);
    const events: SpendEvent[] = [];
    await new SpendGuardedModel(inner, guard, { promptTokens: () => INPUT_TOKENS, onEvent: (e) => events.push(e) }).doGenerate(call);

    expect(events.find((e) => e.kind === 'reserved')).toMatchObject({ pricedAgainst: 'dear', usd: callCost(dear.pricing, INPUT_TOKENS, 500) });
    expect(sandscopeOptions(inner.calls[0]!).eligible).toEqual(['cheap', 'dear']);
    expect(events.find((e) => e.kind === 'settled')).toMatchObject({ provider: 'cheap' });
    expect(guard.spent).toBeCloseTo(callCost(cheap.pricing, INPUT_TOKENS, 400), 12);
  });
});
