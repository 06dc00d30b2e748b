import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Token counts the stub reports; defaults are small fixed numbers so cost assertions are exact. */
export interface StubUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
}

/**
 * Usage the stub reports: fixed numbers, or computed from the request — e.g. a
 * provider that bills every output token it was allowed (`max_tokens`), the
 * worst case a spend guard must bound (issue 12, defect 6).
 */
export type StubUsageSpec = StubUsage | ((body: StubRequest['body']) => StubUsage);

/**
 * What the stub does with one request. Scripted per request so a test states
 * the failure it means — a 429, a 500, a hang, a stream that dies — instead of
 * hoping a real provider misbehaves on cue.
 */
export type StubBehaviour =
  /** A JSON completion, or an SSE stream of it when the request asked for `stream: true`. */
  | { readonly kind: 'reply'; readonly text: string; readonly usage?: StubUsageSpec }
  /** Always a JSON completion. */
  | { readonly kind: 'json'; readonly text: string; readonly usage?: StubUsageSpec }
  /** Always SSE: one `data:` event per chunk, then finish, usage and `[DONE]`. */
  | { readonly kind: 'stream'; readonly chunks: readonly string[]; readonly usage?: StubUsageSpec }
  /**
   * SSE chunks, then a pause (so the client has surely read them), then an
   * error event, the connection cut, or silence — a stream that fails after it started.
   */
  | {
      readonly kind: 'stream-then-fail';
      readonly chunks: readonly string[];
      readonly failure: 'error-event' | 'close' | 'hang';
      readonly pauseMs?: number;
    }
  /** 429, with Retry-After (seconds or HTTP date) and/or retry-after-ms when given. */
  | { readonly kind: 'rate-limit'; readonly retryAfter?: string; readonly retryAfterMs?: string }
  | { readonly kind: 'status'; readonly status: number; readonly body?: string }
  /**
   * An error whose body echoes the caller's credential, as some providers do
   * ("Incorrect API key provided: sk-…"): the bearer token the request carried,
   * read from its Authorization header, in `error.message` after `prefix`
   * (issue 12, defect 3: a key echoed this way reached the run page).
   */
  | { readonly kind: 'echo-key'; readonly status: number; readonly prefix?: string }
  /**
   * The model asks for tools instead of answering (`finish_reason: tool_calls`):
   * a JSON completion, or SSE when the request asked for `stream: true`. Each
   * call's `args` is sent as the JSON string OpenAI sends (`function.arguments`).
   */
  | { readonly kind: 'tool-calls'; readonly calls: readonly StubToolCall[]; readonly usage?: StubUsage }
  /**
   * `/v1/embeddings`: one vector per input ({@link stubEmbedding}), each with
   * its `index`. `reversed` sends the data array last input first — the index,
   * not the position, says which input a vector belongs to.
   */
  | { readonly kind: 'embeddings'; readonly reversed?: boolean; readonly promptTokens?: number }
  /** Accepts the request and never answers (until the server closes). */
  | { readonly kind: 'hang' }
  /** Waits, then behaves as `then`: a slow provider, so a test can act while a turn or run is still going. */
  | { readonly kind: 'after'; readonly ms: number; readonly then: StubBehaviour };

/**
 * The stub's embedding of a text: a fixed function of it, so a test can say
 * which vector belongs to which input (length, first and last character code).
 */
export function stubEmbedding(text: string): number[] {
  return [text.length, text.charCodeAt(0) || 0, text.charCodeAt(text.length - 1) || 0];
}

/** One tool call the stub's model makes. */
export interface StubToolCall {
  readonly name: string;
  readonly args: Record<string, unknown>;
  /** Default `call_<n>`, numbered across the server's life so ids never repeat within a conversation. */
  readonly id?: string;
}

export interface StubRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: { readonly stream?: boolean; readonly model?: string; readonly messages?: unknown[]; readonly [key: string]: unknown };
}

export interface StubOpenAIServer {
  /** OpenAI-compatible API root, e.g. `http://127.0.0.1:41234/v1`. */
  readonly baseURL: string;
  /** Every request received, in order. */
  readonly requests: StubRequest[];
  /** Queue more behaviours. */
  script(...behaviours: StubBehaviour[]): void;
  close(): Promise<void>;
}

export interface StubOptions {
  /** Behaviours for the first requests, in order. */
  readonly script?: readonly StubBehaviour[];
  /**
   * Behaviour once the script is used up, or a function of the request that chooses it (a replay of recorded
   * replies, keyed by what was asked). Default: reply `{"claims":[]}`.
   */
  readonly fallback?: StubBehaviour | ((body: StubRequest['body']) => StubBehaviour);
  /**
   * Serve only `/v1/chat/completions` and `/v1/embeddings`, as a real provider does: any other path is a 404 with
   * OpenAI's `unknown_url` error, recorded but consuming no scripted behaviour. Off by default (a stub answers every
   * path). S-262: a base URL missing /v1, or naming the endpoint, reached a real provider's 404 and the run fell back to
   * the offline model without a word; a test of that needs a stub that answers the wrong path as a provider would.
   */
  readonly strictPaths?: boolean;
}

/** The paths a provider serves under its API root, for `strictPaths`. */
const PROVIDER_PATHS: ReadonlySet<string> = new Set(['/v1/chat/completions', '/v1/embeddings']);

const DEFAULT_USAGE: StubUsage = { promptTokens: 100, completionTokens: 20 };

/**
 * A stub OpenAI-compatible chat-completions server on 127.0.0.1, port 0, for
 * HTTP-level provider tests (STYLE 12–13: a real socket because the socket is
 * the point — SSE framing, timeouts, a connection cut mid-stream). No test
 * reaches the internet.
 */
export async function startStubOpenAIServer(options: StubOptions = {}): Promise<StubOpenAIServer> {
  const queue: StubBehaviour[] = [...(options.script ?? [])];
  const fallback = options.fallback ?? { kind: 'reply', text: '{"claims":[]}' };
  const requests: StubRequest[] = [];
  const ids = { next: 1 };
  const timers = new Set<NodeJS.Timeout>();

  const server = createServer((req, res) => {
    const pieces: Buffer[] = [];
    req.on('data', (piece: Buffer) => pieces.push(piece));
    req.on('end', () => {
      const raw = Buffer.concat(pieces).toString('utf8');
      let body: StubRequest['body'] = {};
      try {
        body = raw ? (JSON.parse(raw) as StubRequest['body']) : {};
      } catch {
        body = {};
      }
      requests.push({ method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body });
      if (options.strictPaths && !PROVIDER_PATHS.has((req.url ?? '/').split('?')[0]!)) {
        const message = `Unknown request URL: ${req.method ?? 'GET'} ${req.url ?? '/'}. Please check the URL for typos.`;
        respond(
          { kind: 'status', status: 404, body: JSON.stringify({ error: { message, type: 'invalid_request_error', code: 'unknown_url' } }) },
          body,
          res,
          timers,
          req.headers,
          ids,
        );
        return;
      }
      const behaviour = queue.shift() ?? (typeof fallback === 'function' ? fallback(body) : fallback);
      respond(behaviour, body, res, timers, req.headers, ids);
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    script: (...behaviours) => queue.push(...behaviours),
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const timer of timers) clearTimeout(timer);
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

function respond(
  behaviour: StubBehaviour,
  body: StubRequest['body'],
  res: ServerResponse,
  timers: Set<NodeJS.Timeout>,
  headers: IncomingMessage['headers'],
  ids: { next: number },
): void {
  const model = typeof body.model === 'string' ? body.model : 'stub-model';
  const usageOf = (spec: StubUsageSpec | undefined): StubUsage | undefined => (typeof spec === 'function' ? spec(body) : spec);
  switch (behaviour.kind) {
    case 'reply':
      if (body.stream) sse(res, model, chunk(behaviour.text), usageOf(behaviour.usage));
      else json(res, model, behaviour.text, usageOf(behaviour.usage));
      return;
    case 'json':
      json(res, model, behaviour.text, usageOf(behaviour.usage));
      return;
    case 'stream':
      sse(res, model, behaviour.chunks, usageOf(behaviour.usage));
      return;
    case 'stream-then-fail': {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      for (const piece of behaviour.chunks) res.write(event(delta(model, { role: 'assistant', content: piece }, null)));
      const timer = setTimeout(() => {
        timers.delete(timer);
        if (behaviour.failure === 'hang') return;
        if (behaviour.failure === 'close') {
          res.socket?.destroy();
        } else {
          res.write(event({ error: { message: 'stub: upstream failed mid-stream', type: 'server_error', code: 'stub_failure' } }));
          res.end();
        }
      }, behaviour.pauseMs ?? 100);
      timers.add(timer);
      return;
    }
    case 'rate-limit': {
      const headers: Record<string, string> = { 'content-type': 'application/json' };
      if (behaviour.retryAfter !== undefined) headers['retry-after'] = behaviour.retryAfter;
      if (behaviour.retryAfterMs !== undefined) headers['retry-after-ms'] = behaviour.retryAfterMs;
      res.writeHead(429, headers);
      res.end(JSON.stringify({ error: { message: 'stub: rate limit reached', type: 'rate_limit_exceeded', code: 'rate_limit' } }));
      return;
    }
    case 'status':
      res.writeHead(behaviour.status, { 'content-type': 'application/json' });
      res.end(behaviour.body ?? JSON.stringify({ error: { message: `stub: status ${behaviour.status}`, type: 'server_error', code: 'stub' } }));
      return;
    case 'echo-key': {
      const key = (headers.authorization ?? '').replace(/^Bearer\s+/i, '');
      res.writeHead(behaviour.status, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          error: { message: `${behaviour.prefix ?? ''}Incorrect API key provided: ${key}`, type: 'invalid_request_error', code: 'invalid_api_key' },
        }),
      );
      return;
    }
    case 'tool-calls': {
      const calls = behaviour.calls.map((c) => ({
        id: c.id ?? `call_${ids.next++}`,
        type: 'function',
        function: { name: c.name, arguments: JSON.stringify(c.args) },
      }));
      const usage = usageBody(behaviour.usage ?? DEFAULT_USAGE);
      if (body.stream) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        const toolDeltas = calls.map((c, index) => ({ index, ...c }));
        res.write(
          event({
            id: 'chatcmpl-stub',
            object: 'chat.completion.chunk',
            created: 1_700_000_000,
            model,
            choices: [{ index: 0, delta: { role: 'assistant', tool_calls: toolDeltas }, finish_reason: null }],
          }),
        );
        res.write(
          event({
            id: 'chatcmpl-stub',
            object: 'chat.completion.chunk',
            created: 1_700_000_000,
            model,
            choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }],
          }),
        );
        res.write(event({ id: 'chatcmpl-stub', object: 'chat.completion.chunk', created: 1_700_000_000, model, choices: [], usage }));
        res.end('data: [DONE]\n\n');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'chatcmpl-stub',
          object: 'chat.completion',
          created: 1_700_000_000,
          model,
          choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: calls }, finish_reason: 'tool_calls' }],
          usage,
        }),
      );
      return;
    }
    case 'embeddings': {
      const inputs = Array.isArray(body.input) ? (body.input as unknown[]).map(String) : [String(body.input ?? '')];
      const data = inputs.map((text, index) => ({ object: 'embedding', index, embedding: stubEmbedding(text) }));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          object: 'list',
          model,
          data: behaviour.reversed ? data.reverse() : data,
          usage: { prompt_tokens: behaviour.promptTokens ?? inputs.length, total_tokens: behaviour.promptTokens ?? inputs.length },
        }),
      );
      return;
    }
    case 'hang':
      return;
    case 'after': {
      const timer = setTimeout(() => {
        timers.delete(timer);
        respond(behaviour.then, body, res, timers, headers, ids);
      }, behaviour.ms);
      timers.add(timer);
      return;
    }
  }
}

function json(res: ServerResponse, model: string, text: string, usage: StubUsage = DEFAULT_USAGE): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(
    JSON.stringify({
      id: 'chatcmpl-stub',
      object: 'chat.completion',
      created: 1_700_000_000,
      model,
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
      usage: usageBody(usage),
    }),
  );
}

function sse(res: ServerResponse, model: string, chunks: readonly string[], usage: StubUsage = DEFAULT_USAGE): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  chunks.forEach((piece, i) => res.write(event(delta(model, i === 0 ? { role: 'assistant', content: piece } : { content: piece }, null))));
  res.write(event(delta(model, {}, 'stop')));
  res.write(event({ id: 'chatcmpl-stub', object: 'chat.completion.chunk', created: 1_700_000_000, model, choices: [], usage: usageBody(usage) }));
  res.end('data: [DONE]\n\n');
}

function delta(model: string, content: Record<string, string>, finishReason: string | null): unknown {
  return {
    id: 'chatcmpl-stub',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model,
    choices: [{ index: 0, delta: content, finish_reason: finishReason }],
  };
}

function event(payload: unknown): string {
  return `data: ${JSON.stringify(payload)}\n\n`;
}

function usageBody(usage: StubUsage): unknown {
  return { prompt_tokens: usage.promptTokens, completion_tokens: usage.completionTokens, total_tokens: usage.promptTokens + usage.completionTokens };
}

/** Splits a reply into a few SSE chunks so streaming is exercised as streaming. */
function chunk(text: string, size = 16): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces.length > 0 ? pieces : [''];
}
