import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { afterEach, describe, expect, it } from 'vitest';
import { perMillionTokens } from './pricing.ts';
import { ProviderHealth } from './provider-health.ts';
import { createHttpModel } from './providers.ts';
import { type ProviderEvent, RouterModel } from './router.ts';
import { BudgetExceededError, callCost, SpendGuard } from './spend-guard.ts';
import { SpendGuardedModel } from './spend-guarded-model.ts';
import { startStubOpenAIServer, type StubBehaviour, type StubOpenAIServer } from './testing/stub-openai-server.ts';
import { drainStream } from './text-stream.ts';

/**
 * Issue 12, defect 6 over HTTP: the run budget relied on the estimate. The guard
 * reserved `chars/4 × price` and the provider billed what it counted — a provider
 * reporting 20,000 prompt tokens put runs at $0.20 against $0.02. Driven over the
 * stub OpenAI-compatible server on 127.0.0.1 (no test reaches the internet).
 */

/** $10 per million prompt tokens, $1 per million output tokens: a prompt-heavy price, as in the report. */
const PRICE = perMillionTokens(10, 1);

const servers: StubOpenAIServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function guardedOverStub(ceilingUsd: number, ...script: StubBehaviour[]) {
  const stub = await startStubOpenAIServer({ script });
  servers.push(stub);
  const model = createHttpModel(
    { kind: 'http', name: 'groq', baseURL: stub.baseURL, model: 'groq-stub', apiKey: 'stub-key', pricing: PRICE },
    { fetch, timeoutMs: 5_000 },
  );
  const router = new RouterModel({ candidates: [{ name: 'groq', model, pricing: PRICE }], health: new ProviderHealth() });
  const guard = new SpendGuard(ceilingUsd);
  return { stub, guard, model: new SpendGuardedModel(router, guard) };
}

const ask = (text: string): LanguageModelV3CallOptions => ({ prompt: [{ role: 'user', content: [{ type: 'text', text }] }] });

describe('issue 12, defect 6: the run budget holds against what the provider bills (stub server)', () => {
  it('prices the prompt as sent, not chars/4: a dense 20,000-byte prompt that would bill $0.20 is refused before it is sent', async () => {
    // 6,667 CJK characters: 20,001 UTF-8 bytes, "1,667 tokens" by chars/4 — a tokenizer may bill one per byte.
    const dense = '池'.repeat(6_667);
    const { stub, guard, model } = await guardedOverStub(0.02, { kind: 'json', text: '{"claims":[]}', usage: { promptTokens: 20_000, completionTokens: 20 } });
    const error = await model.doGenerate(ask(dense)).then(
      () => null,
      (e: unknown) => e,
    );
    console.log(`defect 6 (dense prompt): ${stub.requests.length} request(s) sent, spent $${guard.spent.toFixed(6)} of $0.02`);
    expect(stub.requests).toHaveLength(0);
    expect(guard.spent).toBe(0);
    expect(error).toBeInstanceOf(BudgetExceededError);
    expect((error as Error).message).toMatch(/prompt alone .*20,0\d\d tokens as sent/);
  });

  it('caps maxOutputTokens from the remaining budget: a provider billing every token it is allowed cannot take the run past its ceiling', async () => {
    // The worst an honest provider can bill: one token per byte of each message it reads, the template's
    // overhead (the bound's), and every output token the request allowed.
    const worstCase: StubBehaviour = {
      kind: 'json',
      text: '{"claims":[]}',
      usage: (body) => {
        const messages = (body.messages ?? []) as { content?: unknown }[];
        const prompt = messages.reduce((n, m) => n + 8 + Buffer.byteLength(typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? '')), 16);
        return { promptTokens: prompt, completionTokens: Number(body['max_tokens'] ?? 4_096) };
      },
    };
    const ceiling = 0.0015;
    const { stub, guard, model } = await guardedOverStub(ceiling, worstCase, worstCase);
    const call = { ...ask('What is the connection pool ceiling for orders-db?'), maxOutputTokens: 1_024 };
    await model.doGenerate(call);
    const sent = Number(stub.requests[0]!.body['max_tokens']);
    const second = await model.doGenerate(call).then(
      () => null,
      (e: unknown) => e,
    );
    console.log(
      `defect 6 (output cap): max_tokens sent ${sent} of 1024 asked, spent $${guard.spent.toFixed(6)} of $${ceiling}; then ${stub.requests.length - 1} more request(s)`,
    );
    // ~75 prompt tokens at $10/M leave $0.00075: 750 output tokens at $1/M, not the 1,024 asked for.
    expect(sent).toBeLessThan(1_024);
    expect(sent).toBeGreaterThanOrEqual(700);
    expect(guard.spent).toBeLessThanOrEqual(ceiling);
    // The budget is spent: the next call is refused before it is sent.
    expect(second).toBeInstanceOf(BudgetExceededError);
    expect(stub.requests).toHaveLength(1);
  });
});

describe('an attempt the provider billed, then failed, is settled at what it billed (not $0)', () => {
  /** HTTP 200 with usage, and a reply the client cannot use: no choices (fails validation), or nothing said. */
  const noChoices = JSON.stringify({
    id: 'x',
    object: 'chat.completion',
    created: 1,
    model: 'm',
    choices: [],
    usage: { prompt_tokens: 1_000, completion_tokens: 200, total_tokens: 1_200 },
  });
  const billed = callCost(PRICE, 1_000, 200);

  it('S-255: a 200 whose body cannot be read (truncated JSON) was answered, so it is charged at its bound, not $0', async () => {
    const { guard, model } = await guardedOverStub(1, {
      kind: 'status',
      status: 200,
      body: '{"id":"c","object":"chat.completion","choices":[{"message":{"content":"The pool',
    });
    await expect(model.doGenerate(ask('What is the pool ceiling?'))).rejects.toMatchObject({ code: 'all_providers_failed' });
    expect(guard.reserved).toBe(0);
    expect(guard.spent).toBeGreaterThan(0);
    expect(guard.spent).toBeLessThanOrEqual(1);
  });

  it('every provider failed after reporting usage: the run is charged what was billed', async () => {
    const { guard, model } = await guardedOverStub(1, { kind: 'status', status: 200, body: noChoices });
    await expect(model.doGenerate(ask('What is the pool ceiling?'))).rejects.toMatchObject({ code: 'all_providers_failed' });
    expect(guard.reserved).toBe(0);
    expect(guard.spent).toBeCloseTo(billed, 12);
    expect(guard.tokensSpent).toBe(1_200);
  });

  /**
   * groq then gemini, each on its own stub, under one guard. gemini costs a hundredth of groq, so what is left of the
   * reservation after groq's small billed attempt covers gemini's call (S-249).
   */
  const CHEAP = perMillionTokens(0.1, 0.01);
  async function pair(
    groqScript: StubBehaviour,
    geminiScript: StubBehaviour,
    options: { budgetUsd?: number; timeoutMs?: number; events?: ProviderEvent[] } = {},
  ) {
    const stubs = await Promise.all([startStubOpenAIServer({ script: [groqScript] }), startStubOpenAIServer({ script: [geminiScript] })]);
    servers.push(...stubs);
    const candidates = (['groq', 'gemini'] as const).map((name, i) => {
      const pricing = name === 'groq' ? PRICE : CHEAP;
      return {
        name,
        model: createHttpModel(
          { kind: 'http', name, baseURL: stubs[i]!.baseURL, model: `${name}-stub`, apiKey: 'stub-key', pricing },
          { fetch, timeoutMs: options.timeoutMs ?? 5_000 },
        ),
        pricing,
      };
    });
    const guard = new SpendGuard(options.budgetUsd ?? 1);
    const router = new RouterModel({ candidates, health: new ProviderHealth(), ...(options.events ? { onEvent: (e) => options.events!.push(e) } : {}) });
    return { guard, model: new SpendGuardedModel(router, guard), stubs };
  }
  const small = JSON.stringify({ ...JSON.parse(noChoices), usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 12 } });

  it('a billed failure, then another provider serves: the run is charged both', async () => {
    const { guard, model } = await pair(
      { kind: 'status', status: 200, body: small },
      { kind: 'json', text: '{"claims":[]}', usage: { promptTokens: 100, completionTokens: 20 } },
    );
    await model.doGenerate(ask('What is the pool ceiling?'));
    expect(guard.spent).toBeCloseTo(callCost(PRICE, 10, 2) + callCost(CHEAP, 100, 20), 12);
    expect(guard.tokensSpent).toBe(12 + 120);
  });

  it('a billed empty stream, then another provider streams the answer: the run is charged both', async () => {
    const { guard, model } = await pair(
      { kind: 'stream', chunks: [], usage: { promptTokens: 10, completionTokens: 2 } },
      { kind: 'stream', chunks: ['{"claims":[]}'], usage: { promptTokens: 100, completionTokens: 20 } },
    );
    const { text } = await drainStream((await model.doStream(ask('What is the pool ceiling?'))).stream);
    expect(text).toBe('{"claims":[]}');
    expect(guard.spent).toBeCloseTo(callCost(PRICE, 10, 2) + callCost(CHEAP, 100, 20), 12);
  });

  it('S-249: a timeout charged at its bound leaves no reservation for failover, so the next provider is not called and the budget holds', async () => {
    // The audit's case: groq hangs and is charged at its bound, the whole reservation; gemini would answer.
    const events: ProviderEvent[] = [];
    const budgetUsd = 0.02;
    const { guard, model, stubs } = await pair(
      { kind: 'hang' },
      { kind: 'json', text: '{"claims":[]}', usage: { promptTokens: 100, completionTokens: 20 } },
      {
        budgetUsd,
        timeoutMs: 300,
        events,
      },
    );
    await expect(model.doGenerate(ask('What is the pool ceiling?'))).rejects.toMatchObject({ code: 'all_providers_failed' });
    expect(stubs[1]!.requests).toHaveLength(0);
    expect(guard.spent).toBeLessThanOrEqual(budgetUsd);
    expect(guard.overBudget).toBe(false);
    expect(events.find((e) => e.provider === 'gemini')).toMatchObject({
      kind: 'outside_reservation',
      message: expect.stringMatching(/^earlier attempts of this call billed \$0\.\d{6} of its \$0\.\d{6} spend reservation/),
    });
  });
});
