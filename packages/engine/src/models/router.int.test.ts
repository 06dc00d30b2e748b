import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { afterEach, describe, expect, it } from 'vitest';
import { readResultMetadata } from './call-options.ts';
import { perMillionTokens, promptTokenBound } from './pricing.ts';
import { ProviderHealth } from './provider-health.ts';
import { createHttpModel } from './providers.ts';
import { RouterModel, type ProviderEvent, type RouterCandidate } from './router.ts';
import { describeProviderError } from './provider-error.ts';
import { createSecretScrubber } from './secret-scrubber.ts';
import { manualClock } from './testing/scripted-model.ts';
import { startStubOpenAIServer, type StubBehaviour, type StubOpenAIServer } from './testing/stub-openai-server.ts';
import { drainStream } from './text-stream.ts';

const call: LanguageModelV3CallOptions = { prompt: [{ role: 'user', content: [{ type: 'text', text: 'What is the pool ceiling?' }] }] };

const servers: StubOpenAIServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function provider(name: string, timeoutMs: number, ...script: StubBehaviour[]): Promise<{ candidate: RouterCandidate; stub: StubOpenAIServer }> {
  const stub = await startStubOpenAIServer({ script, fallback: { kind: 'reply', text: `{"claims":[{"text":"from ${name}","citations":["d#s"]}]}` } });
  servers.push(stub);
  const model = createHttpModel(
    { kind: 'http', name: name as 'groq', baseURL: stub.baseURL, model: `${name}-model`, apiKey: 'k', pricing: perMillionTokens(1, 1) },
    { fetch, timeoutMs },
  );
  return { candidate: { name, model, pricing: perMillionTokens(1, 1) }, stub };
}

function routerOver(candidates: RouterCandidate[]) {
  const clock = manualClock();
  const health = new ProviderHealth({ clock: clock.now });
  const events: ProviderEvent[] = [];
  return { router: new RouterModel({ candidates, health, onEvent: (e) => events.push(e) }), events, health, clock };
}

function textOf(result: Awaited<ReturnType<RouterModel['doGenerate']>>): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
}

describe('RouterModel over HTTP (stub servers)', () => {
  it('429 with Retry-After → the second provider serves; the first cools down for that long', async () => {
    const groq = await provider('groq', 2_000, { kind: 'rate-limit', retryAfter: '7' });
    const gemini = await provider('gemini', 2_000);
    const { router, events, health, clock } = routerOver([groq.candidate, gemini.candidate]);
    expect(textOf(await router.doGenerate(call))).toContain('from gemini');
    expect(events.map((e) => [e.provider, e.kind, e.status])).toEqual([
      ['groq', 'rate_limited', 429],
      ['gemini', 'served', undefined],
    ]);
    expect(events[1]!.usage?.inputTokens.total).toBe(100);
    expect(health.cooldownRemainingMs('groq')).toBe(7_000);
    await router.doGenerate(call);
    expect(groq.stub.requests).toHaveLength(1);
    clock.advance(7_000);
    expect(textOf(await router.doGenerate(call))).toContain('from groq');
    expect(groq.stub.requests).toHaveLength(2);
  });

  it('500 → fails over', async () => {
    const groq = await provider('groq', 2_000, { kind: 'status', status: 500 });
    const gemini = await provider('gemini', 2_000);
    const { router, events } = routerOver([groq.candidate, gemini.candidate]);
    expect(textOf(await router.doGenerate(call))).toContain('from gemini');
    expect(events[0]).toMatchObject({ provider: 'groq', kind: 'failed', status: 500 });
  });

  it('a hang past the timeout → fails over', async () => {
    const groq = await provider('groq', 250, { kind: 'hang' });
    const gemini = await provider('gemini', 2_000);
    const { router, events } = routerOver([groq.candidate, gemini.candidate]);
    const result = await router.doGenerate({ ...call, maxOutputTokens: 200 });
    expect(textOf(result)).toContain('from gemini');
    expect(events[0]).toMatchObject({ provider: 'groq', kind: 'failed' });
    expect(events[0]!.message).toMatch(/No response within 250 ms.*; charged at its bound/);
    // S-141: the request was sent and may have been billed: charged at its prompt's bound and the output it was allowed, not $0.
    const bound = promptTokenBound(call);
    expect(events[0]!.costUsd).toBeCloseTo((bound + 200) / 1e6, 12);
    expect(readResultMetadata(result.providerMetadata).billed).toEqual([{ provider: 'groq', inputTokens: bound, outputTokens: 200 }]);
  });

  it('a provider that refuses the connection never ran the request: not charged', async () => {
    const gemini = await provider('gemini', 2_000);
    const closed = createHttpModel(
      { kind: 'http', name: 'groq', baseURL: 'http://127.0.0.1:9/v1', model: 'groq-model', apiKey: 'k', pricing: perMillionTokens(1, 1) },
      { fetch, timeoutMs: 2_000 },
    );
    const { router, events } = routerOver([{ name: 'groq', model: closed, pricing: perMillionTokens(1, 1) }, gemini.candidate]);
    const result = await router.doGenerate(call);
    expect(events[0]).toMatchObject({ provider: 'groq', kind: 'failed' });
    expect(events[0]!.costUsd).toBeUndefined();
    expect(readResultMetadata(result.providerMetadata).billed).toBeUndefined();
  });

  it('a provider echoing its key in a 401 body: status, class and a redacted excerpt, never the key (issue 12, defect 3)', async () => {
    // Shaped like no key (no prefix, no digits): only the configured-secret scrub can know it.
    const key = 'not-shaped-like-any-key';
    const stub = await startStubOpenAIServer({
      script: [
        { kind: 'echo-key', status: 401 },
        { kind: 'echo-key', status: 401 },
      ],
    });
    servers.push(stub);
    const model = createHttpModel(
      { kind: 'http', name: 'groq', baseURL: stub.baseURL, model: 'groq-model', apiKey: key, pricing: perMillionTokens(1, 1) },
      { fetch, timeoutMs: 2_000 },
    );
    const gemini = await provider('gemini', 2_000);
    const events: ProviderEvent[] = [];
    const router = new RouterModel({
      candidates: [{ name: 'groq', model, pricing: perMillionTokens(1, 1) }, gemini.candidate],
      health: new ProviderHealth({ clock: manualClock().now }),
      onEvent: (e) => events.push(e),
      scrub: createSecretScrubber([key]),
    });
    expect(textOf(await router.doGenerate(call))).toContain('from gemini');
    expect(stub.requests[0]!.headers.authorization).toBe(`Bearer ${key}`);
    expect(events[0]).toMatchObject({
      provider: 'groq',
      kind: 'failed',
      status: 401,
      message: 'HTTP 401 authentication: "Incorrect API key provided: [redacted]"',
    });
    expect(JSON.stringify(events)).not.toContain(key);
    // Streaming fails over the same way, with the same words.
    await drainStream((await router.doStream(call)).stream);
    expect(events.filter((e) => e.kind === 'failed').map((e) => e.message)).toEqual([
      'HTTP 401 authentication: "Incorrect API key provided: [redacted]"',
      'HTTP 401 authentication: "Incorrect API key provided: [redacted]"',
    ]);
  });

  it('streams through the router when the first provider is healthy', async () => {
    const groq = await provider('groq', 2_000, { kind: 'stream', chunks: ['{"claims":', '[]}'] });
    const gemini = await provider('gemini', 2_000);
    const { router } = routerOver([groq.candidate, gemini.candidate]);
    const { text, error } = await drainStream((await router.doStream(call)).stream);
    expect(error).toBeUndefined();
    expect(text).toBe('{"claims":[]}');
    expect(gemini.stub.requests).toHaveLength(0);
  });

  it("a stream 429 before any content → fails over to the second provider's stream", async () => {
    const groq = await provider('groq', 2_000, { kind: 'rate-limit' });
    const gemini = await provider('gemini', 2_000);
    const { router } = routerOver([groq.candidate, gemini.candidate]);
    const { text } = await drainStream((await router.doStream(call)).stream);
    expect(text).toContain('from gemini');
    expect(router.lastServedBy).toBe('gemini');
  });

  for (const failure of ['error-event', 'close'] as const) {
    it(`no fallback after the stream has started (one chunk, then ${failure}): the error propagates, the second provider is NOT called`, async () => {
      const groq = await provider('groq', 2_000, { kind: 'stream-then-fail', chunks: ['{"claims":[{"text":"The pool'], failure });
      const gemini = await provider('gemini', 2_000);
      const { router, events } = routerOver([groq.candidate, gemini.candidate]);
      const { text, error } = await drainStream((await router.doStream(call)).stream);
      expect(text).toBe('{"claims":[{"text":"The pool');
      expect(error).toBeDefined();
      expect(gemini.stub.requests).toHaveLength(0);
      expect(router.lastServedBy).toBe('groq');
      expect(events.map((e) => [e.provider, e.kind])).toContainEqual(['groq', 'failed']);
      expect(events.some((e) => e.provider === 'gemini')).toBe(false);
    });
  }
});

describe('an empty reply is a failure, not an answer (HTTP 200, nothing said)', () => {
  for (const content of ['', null] as const) {
    it(`content ${JSON.stringify(content)} → fails over; the empty attempt is recorded failed with what it billed`, async () => {
      const body = JSON.stringify({
        id: 'chatcmpl-empty',
        object: 'chat.completion',
        created: 1,
        model: 'groq-model',
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 100, completion_tokens: 0, total_tokens: 100 },
      });
      const groq = await provider('groq', 2_000, { kind: 'status', status: 200, body });
      const gemini = await provider('gemini', 2_000);
      const { router, events } = routerOver([groq.candidate, gemini.candidate]);
      const result = await router.doGenerate(call);
      expect(textOf(result)).toContain('from gemini');
      expect(events.map((e) => [e.provider, e.kind])).toEqual([
        ['groq', 'failed'],
        ['gemini', 'served'],
      ]);
      expect(events[0]).toMatchObject({ status: 200, message: expect.stringMatching(/empty reply/), costUsd: expect.closeTo(100 / 1_000_000, 12) });
    });
  }

  it('an empty stream (finish before any content) → fails over before the consumer sees anything', async () => {
    const groq = await provider('groq', 2_000, { kind: 'stream', chunks: [] });
    const gemini = await provider('gemini', 2_000);
    const { router, events } = routerOver([groq.candidate, gemini.candidate]);
    const { text, error } = await drainStream((await router.doStream(call)).stream);
    expect(error).toBeUndefined();
    expect(text).toContain('from gemini');
    expect(router.lastServedBy).toBe('gemini');
    expect(events.map((e) => [e.provider, e.kind])).toEqual([
      ['groq', 'failed'],
      ['gemini', 'served'],
    ]);
  });

  it('every provider empty → AllProvidersFailedError, not an empty answer', async () => {
    const groq = await provider('groq', 2_000, { kind: 'json', text: '' });
    const { router } = routerOver([groq.candidate]);
    await expect(router.doGenerate(call)).rejects.toMatchObject({ code: 'all_providers_failed' });
  });
});

describe('S-266: a reply past what max_tokens allows is not read whole (stub servers)', () => {
  /** A fetch that counts the bytes the client took off the wire, so a test can tell what was read from what was sent. */
  function countingFetch(): { fetch: typeof fetch; read: () => number } {
    let bytes = 0;
    const counting: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (!response.body) return response;
      const counted = response.body.pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          transform(piece, controller) {
            bytes += piece.byteLength;
            controller.enqueue(piece);
          },
        }),
      );
      return new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers });
    };
    return { fetch: counting, read: () => bytes };
  }

  async function flooding(script: StubBehaviour, wire: typeof fetch): Promise<{ candidate: RouterCandidate; stub: StubOpenAIServer }> {
    const stub = await startStubOpenAIServer({ script: [script] });
    servers.push(stub);
    const model = createHttpModel(
      { kind: 'http', name: 'groq', baseURL: stub.baseURL, model: 'groq-model', apiKey: 'k', pricing: perMillionTokens(1, 1) },
      { fetch: wire, timeoutMs: 5_000 },
    );
    return { candidate: { name: 'groq', model, pricing: perMillionTokens(1, 1) }, stub };
  }

  // The audit's reply: 696 KB of answer for a call allowed 1,024 output tokens, with the usage the provider reported for it.
  const flood = `{"claims":[{"text":"${'The pool ceiling is 100 connections. '.repeat(18_900)}","citations":["d#s"]}]}`;

  it('a 696 KB JSON answer to max_tokens 1024 fails as reply_too_large, charged at its bound, unread past the bound; the next provider serves', async () => {
    const wire = countingFetch();
    const groq = await flooding({ kind: 'json', text: flood, usage: { promptTokens: 30, completionTokens: 174_000 } }, wire.fetch);
    const gemini = await provider('gemini', 2_000);
    const { router, events } = routerOver([groq.candidate, gemini.candidate]);
    const result = await router.doGenerate({ ...call, maxOutputTokens: 1_024 });
    expect(flood.length).toBeGreaterThan(696_000);
    expect(textOf(result)).toContain('from gemini');
    expect(events.map((e) => [e.provider, e.kind])).toEqual([
      ['groq', 'failed'],
      ['gemini', 'served'],
    ]);
    expect(events[0]!.message).toMatch(/^reply_too_large: ".*max_tokens.*"; charged at its bound/);
    // Charged at its bound (the prompt as sent, the 1,024 tokens it was allowed), not the 174,000 it reported.
    const bound = promptTokenBound(call);
    expect(events[0]!.costUsd).toBeCloseTo((bound + 1_024) / 1e6, 12);
    expect(readResultMetadata(result.providerMetadata).billed).toEqual([{ provider: 'groq', inputTokens: bound, outputTokens: 1_024 }]);
    // The client stopped reading: well short of what was sent.
    expect(wire.read()).toBeLessThan(300_000);
  });

  it('streamed: the stream is cut once it passes the bound, the error says why, and nothing past it reaches the consumer', async () => {
    const wire = countingFetch();
    const piece = 'The pool ceiling is 100 connections. '.repeat(400);
    const groq = await flooding({ kind: 'stream', chunks: ['{"claims":[{"text":"', ...Array.from({ length: 400 }, () => piece)] }, wire.fetch);
    const gemini = await provider('gemini', 2_000);
    const { router, events } = routerOver([groq.candidate, gemini.candidate]);
    const { text, error } = await drainStream((await router.doStream({ ...call, maxOutputTokens: 1_024 })).stream);
    expect(error).toBeDefined();
    expect(describeProviderError(error).errorClass).toBe('reply_too_large');
    expect(text.length).toBeLessThan(1_200_000);
    expect(wire.read()).toBeLessThan(1_400_000);
    // Content had reached the consumer, so no failover (no answer spliced from two providers).
    expect(gemini.stub.requests).toHaveLength(0);
    expect(events.at(-1)).toMatchObject({ provider: 'groq', kind: 'failed', message: expect.stringMatching(/not failing over: reply_too_large/) });
  });
});
