import type { FetchFunction } from '../models/timeout-fetch.ts';
import { type Embedder, EmbedderUnavailableError } from './embedder.ts';

/** KB_EMBED_TIMEOUT, KB_EMBED_NUM_RETRIES, KB_EMBED_BATCH_SIZE defaults (seed 004 #15). */
export const DEFAULT_EMBED_TIMEOUT_MS = 60_000;
export const DEFAULT_EMBED_NUM_RETRIES = 2;
export const DEFAULT_EMBED_BATCH_SIZE = 64;

export interface RemoteEmbedderOptions {
  /** OpenAI-compatible API root, e.g. `https://api.openai.com/v1` (the client posts to `<baseURL>/embeddings`). */
  readonly baseURL: string;
  readonly model: string;
  readonly apiKey?: string;
  /** The only way the engine reaches the network: handed in by the composition root (or a test's stub). */
  readonly fetch: FetchFunction;
  /** KB_EMBED_TIMEOUT: the deadline of ONE attempt at ONE batch. */
  readonly timeoutMs?: number;
  /** KB_EMBED_NUM_RETRIES: attempts after the first, per batch. */
  readonly numRetries?: number;
  /** KB_EMBED_BATCH_SIZE: inputs per request. */
  readonly batchSize?: number;
  /** Pause before retry n (1-based); default 250 ms × n. */
  readonly backoffMs?: (retry: number) => number;
  readonly cacheSimilarityThreshold?: number;
}

/**
 * Seed #15: the embedding service was called with every chunk of a big
 * document in one request, with no timeout and no retries, so one slow or
 * failed call lost the whole document. Here inputs go in batches of
 * KB_EMBED_BATCH_SIZE, in order; each batch has its own deadline
 * (KB_EMBED_TIMEOUT) and its own retries (KB_EMBED_NUM_RETRIES); vectors come
 * back in input order (by each item's `index`, not its position in the reply).
 * A batch that fails every attempt throws EmbedderUnavailableError with the
 * reason — the caller marks what it was embedding as `error` and keeps it.
 */
export class RemoteEmbedder implements Embedder {
  readonly id: string;
  readonly cacheSimilarityThreshold: number;
  readonly timeoutMs: number;
  readonly numRetries: number;
  readonly batchSize: number;
  #dimensions = 0;
  readonly #o: RemoteEmbedderOptions;
  readonly #url: string;

  constructor(options: RemoteEmbedderOptions) {
    this.#o = options;
    this.#url = `${options.baseURL.replace(/\/+$/, '')}/embeddings`;
    this.id = `remote:${options.model}@${new URL(this.#url).host}`;
    this.cacheSimilarityThreshold = options.cacheSimilarityThreshold ?? 0.92;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_EMBED_TIMEOUT_MS;
    this.numRetries = options.numRetries ?? DEFAULT_EMBED_NUM_RETRIES;
    this.batchSize = options.batchSize ?? DEFAULT_EMBED_BATCH_SIZE;
  }

  /** Learned from the first reply (the service decides); 0 until then. */
  get dimensions(): number {
    return this.#dimensions;
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    const batches = Math.ceil(texts.length / this.batchSize);
    for (let b = 0; b < batches; b++) {
      const batch = texts.slice(b * this.batchSize, (b + 1) * this.batchSize);
      out.push(...(await this.#batch(batch, b + 1, batches)));
    }
    return out;
  }

  async #batch(inputs: readonly string[], n: number, of: number): Promise<Float32Array[]> {
    const failures: string[] = [];
    let rejected = false;
    for (let attempt = 0; attempt <= this.numRetries; attempt++) {
      if (attempt > 0) await sleep(this.#o.backoffMs?.(attempt) ?? 250 * attempt);
      try {
        return await this.#request(inputs);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        failures.push(reason);
        rejected = error instanceof PermanentEmbedError;
        if (rejected) break;
      }
    }
    throw new EmbedderUnavailableError(
      `embedding batch ${n} of ${of} (${inputs.length} inputs) failed after ${failures.length} attempt${failures.length === 1 ? '' : 's'}: ${failures.at(-1)}`,
      { rejected },
    );
  }

  async #request(inputs: readonly string[]): Promise<Float32Array[]> {
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), this.timeoutMs);
    try {
      let response: Response;
      let body: unknown;
      try {
        response = await this.#o.fetch(this.#url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(this.#o.apiKey ? { authorization: `Bearer ${this.#o.apiKey}` } : {}) },
          body: JSON.stringify({ model: this.#o.model, input: inputs }),
          signal: deadline.signal,
        });
        body = response.ok ? await response.json() : await response.text().catch(() => '');
      } catch (error) {
        if (deadline.signal.aborted) throw new Error(`no reply within ${this.timeoutMs} ms (KB_EMBED_TIMEOUT)`);
        throw new Error(`the embedding service is unreachable (${error instanceof Error ? error.message : String(error)})`);
      }
      if (!response.ok) {
        const message = `HTTP ${response.status} from the embedding service`;
        // A 4xx other than 408/429 is the request's fault: the same request fails the same way on retry.
        if (response.status >= 400 && response.status < 500 && response.status !== 408 && response.status !== 429) throw new PermanentEmbedError(message);
        throw new Error(message);
      }
      return this.#vectors(body, inputs.length);
    } finally {
      clearTimeout(timer);
    }
  }

  #vectors(body: unknown, count: number): Float32Array[] {
    const data = (body as { data?: unknown })?.data;
    if (!Array.isArray(data) || data.length !== count) {
      throw new Error(`the embedding service answered ${Array.isArray(data) ? data.length : 'no'} vectors for ${count} inputs`);
    }
    const out = new Array<Float32Array>(count);
    data.forEach((item: { index?: unknown; embedding?: unknown }, position) => {
      const index = typeof item?.index === 'number' ? item.index : position;
      if (!Array.isArray(item?.embedding) || index < 0 || index >= count || out[index])
        throw new Error('the embedding service answered a malformed vector list');
      out[index] = unit(item.embedding as number[]);
    });
    this.#dimensions = out[0]?.length ?? this.#dimensions;
    return out;
  }
}

/** A failure no retry can fix (a 400, a 401): stop retrying, report it. */
class PermanentEmbedError extends Error {}

function unit(values: readonly number[]): Float32Array {
  const v = Float32Array.from(values);
  let norm = 0;
  for (const x of v) norm += x * x;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i]! /= norm;
  return v;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
