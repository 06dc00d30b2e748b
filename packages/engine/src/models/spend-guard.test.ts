import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { perMillionTokens, tokenUsage } from './pricing.ts';
import { ProviderHealth } from './provider-health.ts';
import { RouterModel, type RouterCandidate } from './router.ts';
import {
  BudgetExceededError,
  callCost,
  InvalidBudgetError,
  runBudgetFromEnv,
  SpendGuard,
  SpendGuardedModel,
  type SpendEvent,
} from './spend-guard.ts';
import { rateLimitError, ScriptedModel, serverError, type ScriptStep } from './testing/scripted-model.ts';
import { drainStream } from './text-stream.ts';

const call: LanguageModelV3CallOptions = { prompt: [{ role: 'user', content: [{ type: 'text', text: 'q' }] }], maxOutputTokens: 500 };
const INPUT_TOKENS = 1_000;
const CHEAP = perMillionTokens(0.05, 0.08);
const DEAR = perMillionTokens(0.3, 2.5);

function candidate(name: string, pricing: RouterCandidate['pricing'], ...steps: ScriptStep[]): RouterCandidate & { model: ScriptedModel } {
  return { name, model: new ScriptedModel(name, steps.length ? steps : [{ kind: 'text', text: `from ${name}` }]), pricing };
}

function guarded(candidates: RouterCandidate[], ceiling: number, failProviders?: Set<string>) {
  const guard = new SpendGuard(ceiling);
  const health = new ProviderHealth();
  const router = new RouterModel({ candidates, health, ...(failProviders ? { failProviders } : {}) });
  const events: SpendEvent[] = [];
  const model = new SpendGuardedModel(router, guard, { estimateInputTokens: () => INPUT_TOKENS, onEvent: (e) => events.push(e) });
  return { guard, router, model, events, health };
}

/** Deterministic PRNG so a failure reproduces. */
function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('SpendGuard construction (D-007)', () => {
  for (const bad of [0, -0.01, Number.NaN, Number.POSITIVE_INFINITY]) {
    it(`refuses a ceiling of ${bad} with a clear message`, () => {
      expect(() => new SpendGuard(bad)).toThrow(InvalidBudgetError);
      expect(() => new SpendGuard(bad)).toThrow(/RUN_BUDGET_USD must be a positive number.*D-007/);
    });
  }

  it('reads RUN_BUDGET_USD: default 0.02, quotes stripped, zero or garbage refused', () => {
    expect(runBudgetFromEnv({})).toBe(0.02);
    expect(runBudgetFromEnv({ RUN_BUDGET_USD: '' })).toBe(0.02);
    expect(runBudgetFromEnv({ RUN_BUDGET_USD: '"0.5"' })).toBe(0.5);
    expect(() => runBudgetFromEnv({ RUN_BUDGET_USD: '0' })).toThrow(/got "0"/);
    expect(() => runBudgetFromEnv({ RUN_BUDGET_USD: 'twenty cents' })).toThrow(InvalidBudgetError);
  });
});

describe('SpendGuard reserve/settle', () => {
  it('reserves until the ceiling, refuses beyond it, and frees the reservation on settle', () => {
    const guard = new SpendGuard(0.02);
    const a = guard.reserve(0.015)!;
    expect(a).not.toBeNull();
    expect(guard.reserve(0.006)).toBeNull();
    expect(guard.reserved).toBe(0.015);
    guard.settle(a, 0.004);
    expect(guard.reserved).toBe(0);
    expect(guard.spent).toBe(0.004);
    expect(guard.reserve(0.016)).not.toBeNull();
    expect(guard.committed).toBe(0.02);
    expect(guard.reserve(0.000_000_001)).toBeNull();
  });

  it('rejects settling twice and nonsense amounts', () => {
    const guard = new SpendGuard(1);
    const r = guard.reserve(0.1)!;
    guard.settle(r, 0.1);
    expect(() => guard.settle(r, 0.1)).toThrow(/not open/);
    expect(() => guard.reserve(-1)).toThrow(RangeError);
    expect(() => guard.reserve(Number.NaN)).toThrow(RangeError);
  });

  it('1,000 concurrent reservations never make reserved + spent exceed the ceiling', async () => {
    const ceiling = 0.02;
    const guard = new SpendGuard(ceiling);
    const random = mulberry32(20261130);
    let granted = 0;
    let refused = 0;
    let maxCommitted = 0;
    const observe = () => {
      maxCommitted = Math.max(maxCommitted, guard.committed);
      expect(guard.committed).toBeLessThanOrEqual(ceiling);
    };
    const task = async () => {
      const amount = random() * 0.0006;
      const actualFraction = random();
      const settleAfterMs = Math.floor(random() * 5);
      await new Promise((r) => setTimeout(r, Math.floor(random() * 5)));
      const reservation = guard.reserve(amount);
      observe();
      if (!reservation) {
        refused++;
        return;
      }
      granted++;
      await new Promise((r) => setTimeout(r, settleAfterMs));
      guard.settle(reservation, reservation.usd * actualFraction);
      observe();
    };
    await Promise.all(Array.from({ length: 1_000 }, task));
    expect(granted + refused).toBe(1_000);
    // The ceiling was really contended: some calls had to be refused.
    expect(refused).toBeGreaterThan(0);
    expect(granted).toBeGreaterThan(0);
    expect(maxCommitted).toBeGreaterThan(ceiling * 0.9);
    expect(guard.reserved).toBe(0);
    expect(guard.spent).toBeLessThanOrEqual(ceiling);
  });
});

describe('SpendGuardedModel', () => {
  it('D-010: reserves against the most expensive candidate that could serve, not the first', async () => {
    const cheap = candidate('cheap', CHEAP, { kind: 'error', error: serverError(503) });
    const dear = candidate('dear', DEAR, { kind: 'text', text: 'answer', usage: tokenUsage(INPUT_TOKENS, 400) });
    const { model, events, guard } = guarded([cheap, dear], 0.02);
    await model.doGenerate(call);

    const reserved = events.find((e) => e.kind === 'reserved');
    const dearEstimate = callCost(DEAR, INPUT_TOKENS, 500);
    const cheapEstimate = callCost(CHEAP, INPUT_TOKENS, 500);
    expect(reserved).toMatchObject({ kind: 'reserved', pricedAgainst: 'dear', estimatedInputTokens: INPUT_TOKENS, estimatedOutputTokens: 500 });
    expect(reserved!.kind === 'reserved' && reserved!.usd).toBeCloseTo(dearEstimate, 12);

    // Failover reached the dear provider; what it really cost is more than a first-candidate guard would have set aside.
    const actual = callCost(DEAR, INPUT_TOKENS, 400);
    expect(events.find((e) => e.kind === 'settled')).toMatchObject({ provider: 'dear' });
    expect(guard.spent).toBeCloseTo(actual, 9);
    expect(cheapEstimate).toBeLessThan(actual); // the D-010 under-reservation
    expect(reserved!.kind === 'reserved' && reserved!.usd).toBeGreaterThanOrEqual(actual);
  });

  it('D-010: with a ceiling that covers the cheap estimate but not the dear one, the call is refused before any provider is called', async () => {
    const cheapEstimate = callCost(CHEAP, INPUT_TOKENS, 500);
    const dearEstimate = callCost(DEAR, INPUT_TOKENS, 500);
    const ceiling = (cheapEstimate + dearEstimate) / 2;
    const cheap = candidate('cheap', CHEAP, { kind: 'error', error: serverError(503) });
    const dear = candidate('dear', DEAR, { kind: 'text', text: 'answer', usage: tokenUsage(INPUT_TOKENS, 500) });
    const { model, guard, events } = guarded([cheap, dear], ceiling);
    const error = await model.doGenerate(call).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BudgetExceededError);
    expect(cheap.model.calls).toHaveLength(0);
    expect(dear.model.calls).toHaveLength(0);
    expect(guard.committed).toBe(0);
    expect(events).toEqual([expect.objectContaining({ kind: 'refused', pricedAgainst: 'dear' })]);
  });

  it('prices only candidates that could still serve: injected failures and cooldowns are excluded, and the router is held to that set', async () => {
    const cheap = candidate('cheap', CHEAP);
    const dear = candidate('dear', DEAR);
    const { model, events, router } = guarded([cheap, dear], 0.02, new Set(['dear']));
    await model.doGenerate(call);
    expect(events[0]).toMatchObject({ kind: 'reserved', pricedAgainst: 'cheap' });
    expect(router.lastServedBy).toBe('cheap');
    expect(cheap.model.calls[0]!.providerOptions ?? {}).not.toHaveProperty('sandscope');

    const dear2 = candidate('dear', DEAR, { kind: 'error', error: rateLimitError() });
    const g2 = guarded([dear2, candidate('cheap', CHEAP)], 0.02);
    await g2.model.doGenerate(call); // dear 429 → cooling down
    g2.events.length = 0;
    await g2.model.doGenerate(call);
    expect(g2.events[0]).toMatchObject({ kind: 'reserved', pricedAgainst: 'cheap' });
  });

  it('settles at real usage × the price of the provider that served, and caps output at what it reserved', async () => {
    const only = candidate('dear', DEAR, { kind: 'text', text: 'x', usage: tokenUsage(200, 50) });
    const { model, guard } = guarded([only], 0.02);
    await model.doGenerate({ prompt: call.prompt });
    expect(guard.spent).toBeCloseTo(callCost(DEAR, 200, 50), 9);
    expect(guard.reserved).toBe(0);
    expect(only.model.calls[0]!.maxOutputTokens).toBe(1024);
  });

  it('over budget: a non-retryable BudgetExceededError with a message a person can act on', async () => {
    const only = candidate('dear', DEAR);
    const { model } = guarded([only], 0.000_001);
    const error = (await model.doGenerate(call).catch((e: unknown) => e)) as BudgetExceededError;
    expect(error).toBeInstanceOf(BudgetExceededError);
    expect(error.isRetryable).toBe(false);
    expect(error.code).toBe('BUDGET_EXCEEDED');
    expect(error.message).toMatch(/Run budget exhausted.*priced at dear.*RUN_BUDGET_USD.*not made/);
    expect(only.model.calls).toHaveLength(0);
  });

  it('a call every provider failed settles at zero and frees its reservation', async () => {
    const { model, guard } = guarded([candidate('a', DEAR, { kind: 'error', error: serverError() })], 0.02);
    await expect(model.doGenerate(call)).rejects.toThrow(/failed/);
    expect(guard.reserved).toBe(0);
    expect(guard.spent).toBe(0);
  });

  it('streams: settles from the finish part; a stream that breaks after it started is charged its full reservation', async () => {
    const ok = guarded([candidate('dear', DEAR, { kind: 'text', text: 'hello', usage: tokenUsage(100, 10) })], 0.02);
    const { text } = await drainStream((await ok.model.doStream(call)).stream);
    expect(text).toBe('hello');
    expect(ok.guard.spent).toBeCloseTo(callCost(DEAR, 100, 10), 9);
    expect(ok.guard.reserved).toBe(0);

    const broken = guarded([candidate('dear', DEAR, { kind: 'stream-then-error', deltas: ['hel'], error: new Error('reset') })], 0.02);
    const drained = await drainStream((await broken.model.doStream(call)).stream);
    expect(drained.error).toBeInstanceOf(Error);
    expect(broken.guard.reserved).toBe(0);
    expect(broken.guard.spent).toBeCloseTo(callCost(DEAR, INPUT_TOKENS, 500), 9);
  });
});
