import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { afterEach, describe, expect, it } from 'vitest';
import { perMillionTokens, promptTokenBound } from './pricing.ts';
import { ProviderHealth } from './provider-health.ts';
import { createHttpModel } from './providers.ts';
import { type ProviderEvent, RouterModel } from './router.ts';
import { BudgetExceededError, callCost, SpendGuard } from './spend-guard.ts';
import { InProcessSpendLedger } from './spend-ledger.ts';
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

describe('the provider-router audit (2026-12-07): money a reply plainly cost is charged (stub server)', () => {
  const POOL = 'What is the pool ceiling?';
  /** The output cap the guard sends under a $1 ceiling: what the call asks for, the default 1024. */
  const SENT_OUTPUT = 1_024;
  const atBound = callCost(PRICE, promptTokenBound(ask(POOL)), SENT_OUTPUT);
  /** A 200 JSON completion, written by hand so its usage can be anything, or missing. */
  const completion = (text: string, usage?: Record<string, number>) =>
    JSON.stringify({
      id: 'chatcmpl-audit',
      object: 'chat.completion',
      created: 1,
      model: 'groq-stub',
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
      ...(usage ? { usage } : {}),
    });

  it('S-265: a real answer reported as 0 prompt and 0 output tokens is charged at its bound, as a reply whose usage is missing already is', async () => {
    const answer = '{"claims":[{"text":"The pool ceiling is 100 connections.","citations":["d#s"]}]}';
    const zero = await guardedOverStub(1, { kind: 'json', text: answer, usage: { promptTokens: 0, completionTokens: 0 } });
    const result = await zero.model.doGenerate(ask(POOL));
    expect(result.content).toEqual([{ type: 'text', text: answer }]);
    expect(Number(zero.stub.requests[0]!.body['max_tokens'])).toBe(SENT_OUTPUT);
    // The old router settled this at $0: the provider said it cost nothing, and a reply that said something cannot have.
    // Within a nano-dollar: the guard books in whole nano-dollars, rounded up.
    expect(zero.guard.spent).toBeCloseTo(atBound, 8);
    expect(zero.guard.reserved).toBe(0);

    // Missing usage was already charged at the reservation (the spend guard's fail-safe): the two now agree.
    const missing = await guardedOverStub(1, { kind: 'status', status: 200, body: completion(answer) });
    await missing.model.doGenerate(ask(POOL));
    expect(missing.guard.spent).toBeCloseTo(atBound, 8);
    expect(zero.guard.spent).toBeCloseTo(missing.guard.spent, 8);

    // Streamed, the same.
    const streamed = await guardedOverStub(1, {
      kind: 'stream',
      chunks: [answer.slice(0, 20), answer.slice(20)],
      usage: { promptTokens: 0, completionTokens: 0 },
    });
    const { text } = await drainStream((await streamed.model.doStream(ask(POOL))).stream);
    expect(text).toBe(answer);
    expect(streamed.guard.spent).toBeCloseTo(atBound, 8);
  });

  it('S-265: only the part reported as none is taken at its bound (0 prompt tokens, 20 output: the prompt at its bound, the 20 as reported)', async () => {
    const { guard, model } = await guardedOverStub(1, {
      kind: 'status',
      status: 200,
      body: completion('{"claims":[]}', { prompt_tokens: 0, completion_tokens: 20, total_tokens: 20 }),
    });
    await model.doGenerate(ask(POOL));
    expect(guard.spent).toBeCloseTo(callCost(PRICE, promptTokenBound(ask(POOL)), 20), 8);
  });

  // The audit's reply to a call allowed 1,024 output tokens: 696 KB of answer, and the usage the provider reported for it.
  const flood = `{"claims":[{"text":"${'The pool ceiling is 100 connections. '.repeat(18_900)}","citations":["d#s"]}]}`;

  it('S-266: a 696 KB answer to max_tokens 1024 is refused as reply_too_large and charged at its bound, not taken whole at the usage it reported', async () => {
    const { guard, model } = await guardedOverStub(1, { kind: 'json', text: flood, usage: { promptTokens: 30, completionTokens: 174_000 } });
    const error = await model.doGenerate(ask(POOL)).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'all_providers_failed', message: expect.stringMatching(/groq failed \(reply_too_large: .*max_tokens 1024/) });
    // The old router returned the 696 KB and settled $0.1743 (174,000 output tokens) against a reservation of $0.0015.
    expect(guard.spent).toBeCloseTo(atBound, 8);
    expect(guard.reserved).toBe(0);
  });

  it('S-266: streamed, the stream ends with the error once past the bound, and the call is settled at its reservation', async () => {
    const piece = 'The pool ceiling is 100 connections. '.repeat(400);
    const { guard, model } = await guardedOverStub(1, { kind: 'stream', chunks: ['{"claims":[{"text":"', ...Array.from({ length: 400 }, () => piece)] });
    const { text, error } = await drainStream((await model.doStream(ask(POOL))).stream);
    expect(error).toBeDefined();
    expect(text.length).toBeLessThan(1_200_000);
    expect(guard.spent).toBeCloseTo(atBound, 8);
  });

  it('S-265: the router says so in its served event, with the cost at the bound', async () => {
    const stub = await startStubOpenAIServer({ script: [{ kind: 'json', text: '{"claims":[]}', usage: { promptTokens: 0, completionTokens: 0 } }] });
    servers.push(stub);
    const model = createHttpModel(
      { kind: 'http', name: 'groq', baseURL: stub.baseURL, model: 'groq-stub', apiKey: 'stub-key', pricing: PRICE },
      { fetch, timeoutMs: 5_000 },
    );
    const events: ProviderEvent[] = [];
    const router = new RouterModel({ candidates: [{ name: 'groq', model, pricing: PRICE }], health: new ProviderHealth(), onEvent: (e) => events.push(e) });
    await router.doGenerate({ ...ask(POOL), maxOutputTokens: 200 });
    expect(events).toEqual([
      expect.objectContaining({
        provider: 'groq',
        kind: 'served',
        costUsd: expect.closeTo(callCost(PRICE, promptTokenBound(ask(POOL)), 200), 12),
        message: expect.stringMatching(/reported 0 prompt and 0 output tokens for a reply that said something; charged at its bound/),
      }),
    ]);
  });
});

describe('S-267: a call aborted while its provider has it is settled at its bound, not $0 (stub server)', () => {
  const POOL = 'What is the pool ceiling?';
  const atBound = callCost(PRICE, promptTokenBound(ask(POOL)), 1_024);

  /** groq on a stub that takes its time, under a run guard and the day's ledger, as `serve` composes them. */
  async function slowProvider(script: StubBehaviour) {
    const stub = await startStubOpenAIServer({ script: [script] });
    servers.push(stub);
    const model = createHttpModel(
      { kind: 'http', name: 'groq', baseURL: stub.baseURL, model: 'groq-stub', apiKey: 'stub-key', pricing: PRICE },
      { fetch, timeoutMs: 10_000 },
    );
    const router = new RouterModel({ candidates: [{ name: 'groq', model, pricing: PRICE }], health: new ProviderHealth() });
    const guard = new SpendGuard(1);
    const ledger = new InProcessSpendLedger({ ceilingUsd: 5 });
    return { stub, guard, ledger, model: new SpendGuardedModel(router, guard, { ledger }) };
  }

  /** Aborts `controller` once the stub has the request: the provider is working on it. */
  async function abortWhenSent(stub: StubOpenAIServer, controller: AbortController): Promise<void> {
    while (stub.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort(new Error('The run was stopped.'));
  }

  for (const mode of ['doGenerate', 'doStream'] as const) {
    it(`${mode}: aborted mid-call (the replica's grace over, S-258), the hold is settled at the reservation it held`, async () => {
      // biome-ignore lint/suspicious/noThenProperty: the stub provider's delayed reply names what it then sends; nothing awaits this object
      const { stub, guard, ledger, model } = await slowProvider({ kind: 'after', ms: 5_000, then: { kind: 'reply', text: '{"claims":[]}' } });
      const controller = new AbortController();
      const call = { ...ask(POOL), abortSignal: controller.signal };
      const [outcome] = await Promise.all([
        (mode === 'doGenerate' ? model.doGenerate(call) : model.doStream(call)).then(
          () => 'answered',
          (e: unknown) => (e as Error).message,
        ),
        abortWhenSent(stub, controller),
      ]);
      expect(outcome).toBe('The run was stopped.');
      // The old guard settled this at $0: the provider had the request and may bill it, as it may a timeout.
      expect(guard.spent).toBeCloseTo(atBound, 8);
      expect(guard.reserved).toBe(0);
      const day = await ledger.usage();
      expect(day.reservedUsd).toBe(0);
      expect(day.spentUsd).toBeCloseTo(atBound, 8);
    });
  }

  it('a call whose run was stopped before it was sent reaches no provider and costs nothing', async () => {
    const { stub, guard, ledger, model } = await slowProvider({ kind: 'reply', text: '{"claims":[]}' });
    const call = { ...ask(POOL), abortSignal: AbortSignal.abort(new Error('The run was stopped.')) };
    await expect(model.doGenerate(call)).rejects.toThrow('The run was stopped.');
    expect(stub.requests).toHaveLength(0);
    expect(guard.spent).toBe(0);
    expect(await ledger.usage()).toMatchObject({ spentUsd: 0, reservedUsd: 0 });
  });
});
