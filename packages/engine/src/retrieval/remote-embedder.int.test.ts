import { afterEach, describe, expect, it } from 'vitest';
import { startStubOpenAIServer, stubEmbedding, type StubOpenAIServer } from '../models/testing/stub-openai-server.ts';
import { EmbedderUnavailableError } from './embedder.ts';
import { RemoteEmbedder } from './remote-embedder.ts';

/** Seed #15's cases against the stub OpenAI-compatible server's /v1/embeddings, on a real socket. */
let stub: StubOpenAIServer | undefined;
afterEach(async () => {
  await stub?.close();
  stub = undefined;
});

const unit = (v: number[]) => {
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};

function embedder(baseURL: string, options: { timeoutMs?: number; numRetries?: number; batchSize?: number } = {}) {
  return new RemoteEmbedder({ baseURL, model: 'stub-embed', apiKey: 'embed-key', fetch, backoffMs: () => 1, ...options });
}

describe('the remote embedder (seed #15)', () => {
  it('splits inputs into KB_EMBED_BATCH_SIZE batches in order and returns the vectors in input order', async () => {
    stub = await startStubOpenAIServer({ fallback: { kind: 'embeddings', reversed: true } });
    const texts = Array.from({ length: 10 }, (_, i) => `${String.fromCharCode(97 + i)} line ${'x'.repeat(i)}${i}`);
    const vectors = await embedder(stub.baseURL, { batchSize: 4 }).embed(texts);
    expect(stub.requests.map((r) => r.path)).toEqual(['/v1/embeddings', '/v1/embeddings', '/v1/embeddings']);
    expect(stub.requests.map((r) => r.body.input)).toEqual([texts.slice(0, 4), texts.slice(4, 8), texts.slice(8)]);
    expect(stub.requests[0]!.headers.authorization).toBe('Bearer embed-key');
    expect(stub.requests[0]!.body.model).toBe('stub-embed');
    expect(vectors).toHaveLength(10);
    vectors.forEach((v, i) => expect([...v].map((x) => Number(x.toFixed(5)))).toEqual(unit(stubEmbedding(texts[i]!)).map((x) => Number(x.toFixed(5)))));
  });

  it('applies KB_EMBED_TIMEOUT to each attempt: a batch that times out succeeds on its retry', async () => {
    stub = await startStubOpenAIServer({ script: [{ kind: 'embeddings' }, { kind: 'hang' }, { kind: 'embeddings' }] });
    const vectors = await embedder(stub.baseURL, { batchSize: 2, timeoutMs: 300, numRetries: 1 }).embed(['a1', 'b2', 'c3']);
    expect(vectors).toHaveLength(3);
    // batch 1, batch 2 (hangs), batch 2 again: the first batch is not repeated.
    expect(stub.requests.map((r) => r.body.input)).toEqual([['a1', 'b2'], ['c3'], ['c3']]);
  });

  it('gives up after KB_EMBED_NUM_RETRIES retries with a reason naming the batch and the timeout', async () => {
    stub = await startStubOpenAIServer({ fallback: { kind: 'hang' } });
    const failing = embedder(stub.baseURL, { timeoutMs: 200, numRetries: 2 }).embed(['a1']);
    await expect(failing).rejects.toBeInstanceOf(EmbedderUnavailableError);
    await expect(failing).rejects.toThrow('embedding batch 1 of 1 (1 inputs) failed after 3 attempts: no reply within 200 ms (KB_EMBED_TIMEOUT)');
    expect(stub.requests).toHaveLength(3);
  });

  it('does not retry what a retry cannot fix (a 401), and says so', async () => {
    stub = await startStubOpenAIServer({ fallback: { kind: 'status', status: 401 } });
    await expect(embedder(stub.baseURL).embed(['a1'])).rejects.toThrow(/failed after 1 attempt: HTTP 401 from the embedding service/);
    expect(stub.requests).toHaveLength(1);
  });

  // S-090: a refusal of one request is not an outage; a caller that remembers outages must be able to tell them apart.
  it('marks a refused request (a 4xx) as rejected, and an outage (5xx, no reply) as not', async () => {
    stub = await startStubOpenAIServer({ fallback: { kind: 'status', status: 400 } });
    const refused = await embedder(stub.baseURL)
      .embed(['a1'])
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(EmbedderUnavailableError);
    expect((refused as EmbedderUnavailableError).rejected).toBe(true);
    await stub.close();
    stub = await startStubOpenAIServer({ fallback: { kind: 'status', status: 503 } });
    const down = await embedder(stub.baseURL, { numRetries: 1 })
      .embed(['a1'])
      .catch((e: unknown) => e);
    expect((down as EmbedderUnavailableError).rejected).toBe(false);
  });
});
