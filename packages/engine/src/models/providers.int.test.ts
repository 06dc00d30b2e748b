import { APICallError, type LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { afterEach, describe, expect, it } from 'vitest';
import { perMillionTokens } from './pricing.ts';
import { createHttpModel, type HttpProviderConfig } from './providers.ts';
import { startStubOpenAIServer, type StubOpenAIServer } from './testing/stub-openai-server.ts';
import { drainStream } from './text-stream.ts';

const call: LanguageModelV3CallOptions = {
  prompt: [
    { role: 'system', content: 'be brief' },
    { role: 'user', content: [{ type: 'text', text: 'What is the pool ceiling?' }] },
  ],
};

let stub: StubOpenAIServer | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

function config(baseURL: string): HttpProviderConfig {
  return { kind: 'http', name: 'groq', baseURL, model: 'stub-llama', apiKey: 'test-key', pricing: perMillionTokens(1, 1) };
}

describe('createHttpModel against the stub OpenAI-compatible server', () => {
  it('generates: JSON completion, usage, bearer key, model and messages on the wire', async () => {
    stub = await startStubOpenAIServer({ script: [{ kind: 'json', text: '{"claims":[]}', usage: { promptTokens: 42, completionTokens: 7 } }] });
    const model = createHttpModel(config(stub.baseURL), { fetch, timeoutMs: 2_000 });
    const result = await model.doGenerate(call);
    expect(result.content).toEqual([{ type: 'text', text: '{"claims":[]}' }]);
    expect(result.usage.inputTokens.total).toBe(42);
    expect(result.usage.outputTokens.total).toBe(7);
    const request = stub.requests[0]!;
    expect(request.path).toBe('/v1/chat/completions');
    expect(request.headers['authorization']).toBe('Bearer test-key');
    expect(request.body.model).toBe('stub-llama');
    expect(request.body.messages).toEqual([
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'What is the pool ceiling?' },
    ]);
  });

  it('streams: SSE chunks arrive as text deltas, then finish with usage', async () => {
    stub = await startStubOpenAIServer({ script: [{ kind: 'stream', chunks: ['{"claims"', ':[]', '}'], usage: { promptTokens: 30, completionTokens: 3 } }] });
    const model = createHttpModel(config(stub.baseURL), { fetch, timeoutMs: 2_000 });
    const { text, parts, error } = await drainStream((await model.doStream(call)).stream);
    expect(error).toBeUndefined();
    expect(text).toBe('{"claims":[]}');
    expect(parts.filter((p) => p.type === 'text-delta')).toHaveLength(3);
    expect(parts.at(-1)).toMatchObject({ type: 'finish', usage: { inputTokens: { total: 30 }, outputTokens: { total: 3 } } });
    expect(stub.requests[0]!.body.stream).toBe(true);
  });

  it('reports a 429 as a retryable APICallError carrying Retry-After', async () => {
    stub = await startStubOpenAIServer({ script: [{ kind: 'rate-limit', retryAfter: '9' }] });
    const model = createHttpModel(config(stub.baseURL), { fetch, timeoutMs: 2_000 });
    const error = await Promise.resolve(model.doGenerate(call)).catch((e: unknown) => e);
    expect(APICallError.isInstance(error)).toBe(true);
    expect((error as APICallError).statusCode).toBe(429);
    expect((error as APICallError).isRetryable).toBe(true);
    expect((error as APICallError).responseHeaders?.['retry-after']).toBe('9');
  });

  it('turns a hang past the timeout into a retryable failure', async () => {
    stub = await startStubOpenAIServer({ script: [{ kind: 'hang' }] });
    const model = createHttpModel(config(stub.baseURL), { fetch, timeoutMs: 200 });
    const started = Date.now();
    const error = await Promise.resolve(model.doGenerate(call)).catch((e: unknown) => e);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(APICallError.isInstance(error)).toBe(true);
    expect((error as APICallError).isRetryable).toBe(true);
    expect((error as Error).message).toMatch(/No response within 200 ms/);
  });

  it('times out a stream that goes silent after it started (idle deadline)', async () => {
    stub = await startStubOpenAIServer({ script: [{ kind: 'stream-then-fail', chunks: ['{"claims"'], failure: 'hang', pauseMs: 10 }] });
    const model = createHttpModel(config(stub.baseURL), { fetch, timeoutMs: 200 });
    const { text, error } = await drainStream((await model.doStream(call)).stream);
    expect(text).toBe('{"claims"');
    expect(error).toBeDefined();
    // The SDK wraps a body failure ("Failed to process successful response"); ours is the cause.
    expect(messages(error).join(' | ')).toMatch(/No data within 200 ms/);
  });

  it('uses only the fetch it is given', async () => {
    const seen: string[] = [];
    const fakeFetch: typeof fetch = async (input) => {
      seen.push(String(input instanceof Request ? input.url : input));
      return new Response(
        JSON.stringify({ id: 'x', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: 'stop' }] }),
        {
          headers: { 'content-type': 'application/json' },
        },
      );
    };
    const model = createHttpModel(config('https://provider.invalid/v1'), { fetch: fakeFetch, timeoutMs: 1_000 });
    const result = await model.doGenerate(call);
    expect(result.content).toEqual([{ type: 'text', text: 'hi' }]);
    expect(seen).toEqual(['https://provider.invalid/v1/chat/completions']);
  });
});

function messages(error: unknown): string[] {
  const out: string[] = [];
  for (let e = error; e instanceof Error && out.length < 5; e = e.cause) out.push(e.message);
  return out;
}
