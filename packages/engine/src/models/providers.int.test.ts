import { APICallError, type LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { afterEach, describe, expect, it } from 'vitest';
import { perMillionTokens } from './pricing.ts';
import { describeProviderError } from './provider-error.ts';
import { createHttpModel, type HttpProviderConfig, providerConfigs } from './providers.ts';
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

/**
 * S-262: a base URL missing /v1, or naming the endpoint, is answered 404 by a provider, and the run fell back to the
 * offline model; only --trace said "HTTP 404 not_found", with nothing naming the variable to fix.
 */
describe('a misconfigured base URL, against a stub that serves only /v1 as a provider does', () => {
  const failure = async (baseURL: string, name: 'groq' | 'ollama' = 'groq') => {
    const configured = providerConfigs({
      // The agent's config names the variable (S-262); the engine only repeats it.
      [name]: {
        ...(name === 'ollama' ? {} : { apiKey: 'test-key' }),
        baseURL,
        model: 'stub-llama',
        baseUrlVariable: name === 'ollama' ? 'OLLAMA_BASE_URL' : 'GROQ_BASE_URL',
      },
    })[0] as HttpProviderConfig;
    const model = createHttpModel(configured, { fetch, timeoutMs: 2_000 });
    return describeProviderError(await Promise.resolve(model.doGenerate(call)).catch((e: unknown) => e));
  };

  it('asks whether <NAME>_BASE_URL is missing /v1, and says it is used as given', async () => {
    stub = await startStubOpenAIServer({ strictPaths: true });
    const root = stub.baseURL.replace(/\/v1$/, '');
    const said = await failure(root);
    expect(stub.requests.map((r) => r.path)).toEqual(['/chat/completions']);
    expect(said.message).toMatch(/^HTTP 404 not_found: "Unknown request URL: POST \/chat\/completions\. .*"; is GROQ_BASE_URL missing \/v1\?/);
    expect(said.hint).toBe(`is GROQ_BASE_URL missing /v1? Calls went to ${root}/chat/completions (it is used as given; only OLLAMA_BASE_URL has /v1 added)`);
  });

  it('says to set the base URL, not the endpoint', async () => {
    stub = await startStubOpenAIServer({ strictPaths: true });
    const said = await failure(`${stub.baseURL}/chat/completions`);
    expect(stub.requests.map((r) => r.path)).toEqual(['/v1/chat/completions/chat/completions']);
    expect(said.hint).toBe(`GROQ_BASE_URL names the endpoint: set the base URL, not the endpoint (${stub.baseURL})`);
  });

  it('Ollama: a bare server address gets /v1, so nothing to hint; another path is asked about as the others are', async () => {
    stub = await startStubOpenAIServer({ strictPaths: true, script: [{ kind: 'json', text: 'hi' }] });
    const root = stub.baseURL.replace(/\/v1$/, '');
    const configured = providerConfigs({ ollama: { baseURL: root, model: 'stub-llama' } })[0] as HttpProviderConfig;
    const served = await createHttpModel(configured, { fetch, timeoutMs: 2_000 }).doGenerate(call);
    expect(served.content).toEqual([{ type: 'text', text: 'hi' }]);
    const said = await failure(`${root}/api`, 'ollama');
    expect(said.hint).toBe(
      `is OLLAMA_BASE_URL missing /v1? Calls went to ${root}/api/chat/completions (/v1 is added only to a bare server address, such as http://127.0.0.1:11434)`,
    );
  });

  it('a right base URL that 404s (an unknown model) gets no hint', async () => {
    stub = await startStubOpenAIServer({ strictPaths: true, script: [{ kind: 'status', status: 404 }] });
    expect(await failure(stub.baseURL)).toEqual({
      status: 404,
      errorClass: 'not_found',
      excerpt: 'stub: status 404',
      message: 'HTTP 404 not_found: "stub: status 404"',
    });
  });
});

function messages(error: unknown): string[] {
  const out: string[] = [];
  for (let e = error; e instanceof Error && out.length < 5; e = e.cause) out.push(e.message);
  return out;
}
