import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { MESSAGE_OVERHEAD_TOKENS, perMillionTokens, promptTokenBound, REQUEST_OVERHEAD_TOKENS, tokenUsage, utf8Bytes } from './pricing.ts';
import { PromptMeter } from './prompt-meter.ts';
import { ProviderHealth } from './provider-health.ts';
import { RouterModel, type RouterCandidate } from './router.ts';
import { BudgetExceededError, callCost, InvalidBudgetError, SpendGuard, type SpendEvent } from './spend-guard.ts';
import { SpendGuardedModel } from './spend-guarded-model.ts';
import { InProcessSpendLedger, type SpendLedger, SpendLedgerUnavailableError } from './spend-ledger.ts';
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
  const model = new SpendGuardedModel(router, guard, { promptTokens: () => INPUT_TOKENS, onEvent: (e) => events.push(e) });
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
    expect(reserved).toMatchObject({ kind: 'reserved', pricedAgainst: 'dear', promptTokens: INPUT_TOKENS, outputTokens: 500 });
    expect(reserved!.kind === 'reserved' && reserved!.usd).toBeCloseTo(dearEstimate, 12);

    // Failover reached the dear provider; what it really cost is more than a first-candidate guard would have set aside.
    const actual = callCost(DEAR, INPUT_TOKENS, 400);
    expect(events.find((e) => e.kind === 'settled')).toMatchObject({ provider: 'dear' });
    expect(guard.spent).toBeCloseTo(actual, 9);
    expect(cheapEstimate).toBeLessThan(actual); // the D-010 under-reservation
    expect(reserved!.kind === 'reserved' && reserved!.usd).toBeGreaterThanOrEqual(actual);
  });

  it('D-010: with a ceiling that covers the cheap call but not the dear one at its smallest useful size, the call is refused before any provider is called', async () => {
    const cheapEstimate = callCost(CHEAP, INPUT_TOKENS, 500);
    // The dear provider's prompt and 32 output tokens fit; the 64 the guard needs at least do not (defect 6 caps output, so
    // "cannot afford the asked-for 500" no longer refuses — "cannot afford a useful answer" does).
    const ceiling = callCost(DEAR, INPUT_TOKENS, 32);
    expect(cheapEstimate).toBeLessThan(ceiling);
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
    expect(error.code).toBe('budget_exceeded');
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

describe('the prompt as sent, and what providers bill for it (issue 12, defect 6)', () => {
  it('promptTokenBound counts UTF-8 bytes of everything the provider reads, plus the chat template', () => {
    const text = (t: string): LanguageModelV3CallOptions => ({ prompt: [{ role: 'user', content: [{ type: 'text', text: t }] }] });
    const overhead = REQUEST_OVERHEAD_TOKENS + MESSAGE_OVERHEAD_TOKENS;
    expect(promptTokenBound(text('abcd'))).toBe(overhead + 4);
    expect(promptTokenBound(text('池'.repeat(10)))).toBe(overhead + 30); // chars/4 says 3
    expect(promptTokenBound(text('🙂'))).toBe(overhead + 4);
    expect(utf8Bytes('é\u{1F600}\ud800x')).toBe(2 + 4 + 3 + 1);
    const withSystem: LanguageModelV3CallOptions = {
      prompt: [
        { role: 'system', content: 'rules' },
        { role: 'user', content: [{ type: 'text', text: 'q' }] },
      ],
      tools: [{ type: 'function', name: 'look', description: 'd', inputSchema: { type: 'object' } }],
    };
    expect(promptTokenBound(withSystem)).toBe(REQUEST_OVERHEAD_TOKENS + 2 * MESSAGE_OVERHEAD_TOKENS + 5 + 1 + JSON.stringify(withSystem.tools).length);
  });

  it('PromptMeter remembers by how much a provider billed past the bound, and forgets once it bills within it', () => {
    const meter = new PromptMeter();
    expect(meter.factor('groq')).toBe(1);
    meter.observe('groq', 1_000, 20_000);
    expect(meter.factor('groq')).toBe(20);
    meter.observe('groq', 1_000, undefined);
    expect(meter.factor('groq')).toBe(20);
    meter.observe('groq', 1_000, 300);
    expect(meter.factor('groq')).toBe(1);
  });

  it('a provider once billed past what a run can afford is left out of the next run, not the reason every later run is refused', async () => {
    // One odd bill (20× the bound) taught the process-wide meter to price `groq`'s prompts at 20,000 tokens: more
    // than a fresh run's whole 16,000-token allowance. The run must still be served, by a provider it can afford.
    const meter = new PromptMeter();
    meter.observe('groq', INPUT_TOKENS, 20 * INPUT_TOKENS);
    const groq = candidate('groq', DEAR);
    const free = candidate('free', perMillionTokens(0, 0));
    const guard = new SpendGuard(0.02, { tokenCeiling: 16_000 });
    const router = new RouterModel({ candidates: [groq, free], health: new ProviderHealth() });
    const model = new SpendGuardedModel(router, guard, { promptTokens: () => INPUT_TOKENS, meter });
    const result = await model.doGenerate(call);
    expect(result.content).toEqual([{ type: 'text', text: 'from free' }]);
    expect(groq.model.calls).toHaveLength(0);
    // With no provider left that the run can afford, it is still refused, naming the allowance.
    const alone = new SpendGuardedModel(
      new RouterModel({ candidates: [candidate('groq', DEAR)], health: new ProviderHealth() }),
      new SpendGuard(0.02, { tokenCeiling: 16_000 }),
      {
        promptTokens: () => INPUT_TOKENS,
        meter,
      },
    );
    const error = (await alone.doGenerate(call).catch((e: unknown) => e)) as BudgetExceededError;
    expect(error).toBeInstanceOf(BudgetExceededError);
    expect(error.details.reason).toBe('tokens');
  });

  it('a settlement above the reservation stops the run: every later call is refused, even one a free provider could serve', async () => {
    const liar = candidate('liar', DEAR, { kind: 'text', text: 'x', usage: tokenUsage(200_000, 10) });
    const free = candidate('free', perMillionTokens(0, 0));
    const { model, guard, events } = guarded([liar, free], 0.02);
    await model.doGenerate(call);
    expect(guard.spent).toBeGreaterThan(0.02);
    expect(guard.overBudget).toBe(true);
    expect(events.find((e) => e.kind === 'settled')).toMatchObject({ overBudget: true });

    const error = (await model.doGenerate(call).catch((e: unknown) => e)) as BudgetExceededError;
    expect(error).toBeInstanceOf(BudgetExceededError);
    expect(error.details.reason).toBe('over');
    expect(error.message).toMatch(/^Run stopped: its model calls have cost \$0\.\d+, over its \$0\.020000 ceiling \(RUN_BUDGET_USD\).*No further model call/);
    expect(liar.model.calls).toHaveLength(1);
    expect(free.model.calls).toHaveLength(0);
  });
});

describe('the run token allowance (RUN_TOKEN_BUDGET, issue 12, defect 1)', () => {
  function tokenGuarded(tokenCeiling: number, ...steps: ScriptStep[]) {
    const only = candidate('free', perMillionTokens(0, 0), ...steps);
    const guard = new SpendGuard(0.02, { tokenCeiling });
    const model = new SpendGuardedModel(new RouterModel({ candidates: [only], health: new ProviderHealth() }), guard, { promptTokens: () => INPUT_TOKENS });
    return { only, guard, model };
  }

  it('caps output at the tokens left, refuses a call whose prompt and 64 output tokens do not fit, and names RUN_TOKEN_BUDGET', async () => {
    const { only, guard, model } = tokenGuarded(
      2_600,
      { kind: 'text', text: 'a', usage: tokenUsage(INPUT_TOKENS, 100) },
      { kind: 'text', text: 'b', usage: tokenUsage(INPUT_TOKENS, 100) },
    );
    await model.doGenerate({ ...call, maxOutputTokens: 1_024 });
    expect(only.model.calls[0]!.maxOutputTokens).toBe(1_024);
    expect(guard.tokensSpent).toBe(1_100);
    await model.doGenerate({ ...call, maxOutputTokens: 1_024 });
    expect(only.model.calls[1]!.maxOutputTokens).toBe(2_600 - 1_100 - INPUT_TOKENS); // 500 left after the prompt
    expect(guard.tokensSpent).toBe(2_200);
    const error = (await model.doGenerate(call).catch((e: unknown) => e)) as BudgetExceededError;
    expect(error).toBeInstanceOf(BudgetExceededError);
    expect(error.details.reason).toBe('tokens');
    expect(error.message).toMatch(/Run token allowance exhausted: .*1,000 tokens as sent.*64 output tokens.*400 of the run's 2600 tokens \(RUN_TOKEN_BUDGET\)/);
    expect(error.remedy).toMatch(/RUN_TOKEN_BUDGET/);
    expect(only.model.calls).toHaveLength(2);
  });

  it('a call that reports more tokens than it reserved leaves the run over its allowance, and stops it', async () => {
    const { guard, model } = tokenGuarded(5_000, { kind: 'text', text: 'a', usage: tokenUsage(9_000, 10) });
    await model.doGenerate(call);
    expect(guard.overBudget).toBe(true);
    const error = (await model.doGenerate(call).catch((e: unknown) => e)) as BudgetExceededError;
    expect(error.details.reason).toBe('over');
    expect(error.message).toMatch(/used 9010 tokens, over its 5000-token allowance \(RUN_TOKEN_BUDGET\)/);
  });

  it('refuses a token ceiling that bounds nothing', () => {
    expect(() => new SpendGuard(0.02, { tokenCeiling: 0 })).toThrow(/RUN_TOKEN_BUDGET must be a whole number/);
    expect(() => new SpendGuard(0.02, { tokenCeiling: 1.5 })).toThrow(InvalidBudgetError);
  });
});

describe('the deployment daily ceiling shared by replicas (DAILY_SPEND_CEILING_USD, issue 11 section 2)', () => {
  function onLedger(ledger: SpendLedger, ...steps: ScriptStep[]) {
    const only = candidate('dear', DEAR, ...steps);
    const guard = new SpendGuard(0.02);
    const events: SpendEvent[] = [];
    const model = new SpendGuardedModel(new RouterModel({ candidates: [only], health: new ProviderHealth() }), guard, {
      promptTokens: () => INPUT_TOKENS,
      ledger,
      onEvent: (e) => events.push(e),
    });
    return { only, guard, model, events };
  }

  it('books every priced call on the ledger and settles it there at what it cost; a run that fits its own ceiling is refused once the day is spent', async () => {
    // Room for one call's reservation (dear, 1,000 prompt + 500 output tokens) but not two.
    const ledger = new InProcessSpendLedger({ ceilingUsd: callCost(DEAR, INPUT_TOKENS, 500) * 1.5 });
    const first = onLedger(ledger, { kind: 'text', text: 'a', usage: tokenUsage(INPUT_TOKENS, 500) });
    await first.model.doGenerate(call);
    expect((await ledger.usage()).spentUsd).toBeCloseTo(first.guard.spent, 9);
    expect((await ledger.usage()).reservedUsd).toBe(0);

    // Another run (another replica, on the same ledger): its own $0.02 is untouched, the day's money is not.
    const second = onLedger(ledger);
    const error = (await second.model.doGenerate(call).catch((e: unknown) => e)) as BudgetExceededError;
    expect(error).toBeInstanceOf(BudgetExceededError);
    expect(error.details.reason).toBe('daily');
    expect(error.message).toMatch(
      /^Daily spend ceiling reached: .*only \$0\.\d+ of the deployment's \$0\.\d+ for this UTC day \(DAILY_SPEND_CEILING_USD, the lowest any replica has set, shared by every replica\) is left\. The call was not made\.$/,
    );
    expect(error.remedy).toMatch(/DAILY_SPEND_CEILING_USD/);
    expect(second.only.model.calls).toHaveLength(0);
    expect(second.guard.committed).toBe(0);
    expect(second.events.map((e) => e.kind)).toEqual(['reserved', 'settled', 'refused']);
  });

  it('a free call never reaches the ledger; a priced call whose ledger cannot be reached is not made', async () => {
    const down: SpendLedger = {
      ceilingUsd: 1,
      description: 'down',
      reserve: async () => {
        throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
      },
      settle: async () => {},
      usage: async () => ({ day: '', spentUsd: 0, reservedUsd: 0, ceilingUsd: 1 }),
    };
    const free = new SpendGuardedModel(
      new RouterModel({ candidates: [candidate('free', perMillionTokens(0, 0))], health: new ProviderHealth() }),
      new SpendGuard(0.02),
      { ledger: down },
    );
    await expect(free.doGenerate(call)).resolves.toBeDefined();

    const { only, guard, model } = onLedger(down);
    const error = await model.doGenerate(call).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SpendLedgerUnavailableError);
    expect((error as Error).message).toMatch(/shared spend ledger cannot be reached \(connect ECONNREFUSED.*no model call was made/);
    expect(only.model.calls).toHaveLength(0);
    expect(guard.committed).toBe(0);
  });
});
