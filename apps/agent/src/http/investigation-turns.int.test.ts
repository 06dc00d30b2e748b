import {
  perMillionTokens,
  createHttpModel,
  InProcessSpendLedger,
  type RouterCandidate,
  type SpendLedger,
  SpendLedgerUnavailableError,
} from '@sandscope/engine/models';
import { startStubOpenAIServer, type StubBehaviour, type StubOpenAIServer, incidentLog } from '@sandscope/engine/testing';
import { startStore, type Store } from '@sandscope/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { InProcessLimiter } from '../limits/in-process-limiter.ts';
import type { TokenReservation } from '../limits/limiter.ts';
import { type AgentService, startAgentService } from '../service/compose.ts';
import { appDepsOf, createApp } from './app.ts';
import { type Listening, listen } from './listen.ts';
import { readSse } from './testing/sse-events.ts';

/**
 * Investigation turns with a provider configured (issue 10): the agent's
 * router candidates are a stub OpenAI-compatible server, so a turn is the
 * tool-calling loop, end to end through the HTTP routes and the store.
 */
const TOKEN = 'test-token-0123456789abcdef0123456789';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const JSON_AUTH = { ...AUTH, 'content-type': 'application/json' };

let store: Store;
let stub: StubOpenAIServer;
let agent: AgentService;
let app: ReturnType<typeof createApp>;
let server: Listening;
/** The daily ledger's next reservations to grant before it fails as unreachable; null: it never fails. */
let ledgerGrantsLeft: number | null = null;

beforeAll(async () => {
  store = await startStore({ dataDir: 'memory://' });
  stub = await startStubOpenAIServer();
  const pricing = perMillionTokens(1, 2);
  const candidate: RouterCandidate = {
    name: 'groq',
    model: createHttpModel(
      { kind: 'http', name: 'groq', baseURL: stub.baseURL, model: 'stub-llama', apiKey: 'test-key', pricing },
      { fetch, timeoutMs: 5_000 },
    ),
    pricing,
  };
  const parsed = loadConfig({ AGENT_TOKEN: TOKEN, IP_SALT: 'salt-for-tests-0123456789', INVESTIGATION_MAX_STEPS: '4' }, { requireToken: true });
  if (!parsed.ok) throw new Error(parsed.message);
  const books = new InProcessSpendLedger({ ceilingUsd: parsed.config.dailySpendCeilingUsd });
  // A ledger that can go down mid-turn: the turn then throws after a provider has served it.
  const spendLedger: SpendLedger = {
    ceilingUsd: books.ceilingUsd,
    description: 'a test ledger that can go down',
    reserve: async (usd) => {
      if (ledgerGrantsLeft !== null && ledgerGrantsLeft-- <= 0) throw new SpendLedgerUnavailableError('the test took it down');
      return books.reserve(usd);
    },
    settle: (hold, actualUsd) => books.settle(hold, actualUsd),
    usage: () => books.usage(),
  };
  agent = await startAgentService({ config: parsed.config, store, log: () => {}, candidates: [candidate], spendLedger });
  app = createApp(appDepsOf(agent));
  // A real socket because the socket is the point for SSE (STYLE 13); port 0, an ephemeral port.
  server = await listen(app, { port: 0, host: '127.0.0.1' });
}, 120_000);

afterAll(async () => {
  await server?.close(0);
  await agent?.close();
  await stub?.close();
  await store?.close();
});

const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = JSON_AUTH) =>
  app.request(`/v1/investigations${path}`, { method, headers, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });

async function json(res: Response, status: number): Promise<any> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return JSON.parse(text);
}

async function investigationWithLog(): Promise<string> {
  const { investigation } = await json(await call('POST', '', { title: 'checkout 502s' }), 201);
  await json(await call('PUT', `/${investigation.id}/files/app.log`, incidentLog(), { ...AUTH, 'content-type': 'text/plain' }), 201);
  return investigation.id as string;
}

const readThenAnswer: StubBehaviour[] = [
  {
    kind: 'tool-calls',
    calls: [{ name: 'read_file', args: { path: 'app.log', offset: 4310, limit: 10 } }],
    usage: { promptTokens: 400, completionTokens: 25 },
  },
  {
    kind: 'json',
    text: JSON.stringify({ claims: [{ text: 'orders-db reported its connection pool exhausted', citations: ['app.log:4312-4318'] }], unknown: [] }),
    usage: { promptTokens: 900, completionTokens: 60 },
  },
];

describe('POST /v1/investigations/:id/turns with a provider configured', () => {
  it('answers through the tool-calling loop, and a reload shows the cited lines and the provider metrics', async () => {
    const id = await investigationWithLog();
    stub.script(...readThenAnswer);
    const { turn } = await json(await call('POST', `/${id}/turns`, { message: 'Why is checkout getting 502s?' }), 200);
    expect(turn.mode).toBe('provider');
    expect(turn.citations).toEqual([{ kind: 'file', path: 'app.log', startLine: 4312, endLine: 4318 }]);
    expect(turn.toolCalls).toEqual([{ tool: 'read_file', args: { path: 'app.log', offset: 4310, limit: 10 }, ok: true }]);
    expect(turn.metrics).toMatchObject({ promptTokens: 1300, completionTokens: 85, provider: 'groq' });
    expect(turn.metrics.costUsd).toBeGreaterThan(0);

    const detail = await json(await call('GET', `/${id}`), 200);
    const saved = detail.messages.at(-1);
    expect(saved.metrics).toEqual(turn.metrics);
    expect(saved.result.citations).toEqual(turn.citations);
    expect(saved.result.mode).toBe('provider');
  });
});

describe('POST /v1/investigations/:id/turns with Accept: text/event-stream, over real HTTP', () => {
  const post = (id: string, body: unknown) =>
    fetch(`${server.url}/v1/investigations/${id}/turns`, {
      method: 'POST',
      headers: { ...JSON_AUTH, accept: 'text/event-stream' },
      body: JSON.stringify(body),
    });

  it('streams tool and provider events as they happen, then the result, each with an id; the turn is stored as the JSON route stores it', async () => {
    const id = await investigationWithLog();
    stub.script(...readThenAnswer);
    const res = await post(id, { message: 'Why is checkout getting 502s?' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const raw: string[] = [];
    const events = await readSse(res.clone());
    raw.push(await res.text());

    expect(events.map((e) => e.event)).toEqual(['provider', 'tool', 'provider', 'result']);
    expect(events[0]!.data).toMatchObject({ investigationId: id, provider: 'groq', kind: 'served', tokensIn: 400, tokensOut: 25 });
    expect(events[1]!.data).toEqual({
      investigationId: id,
      turnId: expect.any(Number),
      tool: 'read_file',
      args: { path: 'app.log', offset: 4310, limit: 10 },
      ok: true,
    });
    const { turn } = events[3]!.data as { turn: any };
    expect(turn.mode).toBe('provider');
    expect(turn.citations).toEqual([{ kind: 'file', path: 'app.log', startLine: 4312, endLine: 4318 }]);
    expect([...raw[0]!.matchAll(/^id: (\d+)$/gm)].map((m) => m[1])).toEqual(['1', '2', '3', '4']);

    const detail = await json(await call('GET', `/${id}`), 200);
    expect(detail.messages.map((m: any) => m.role)).toEqual(['user', 'assistant']);
    expect(detail.messages[1].metrics).toEqual(turn.metrics);
  });

  it('streams the fallback note when every provider fails, then the offline answer', async () => {
    const id = await investigationWithLog();
    stub.script({ kind: 'status', status: 500 });
    const events = await readSse(await post(id, { message: 'Why is checkout getting 502s from orders-db?' }));
    expect(events.map((e) => e.event).filter((e) => e !== 'tool')).toEqual(['provider', 'note', 'result']);
    expect((events.find((e) => e.event === 'note')!.data as { text: string }).text).toMatch(/^Every provider failed \(groq: HTTP 500/);
    const { turn } = events.at(-1)!.data as { turn: any };
    expect(turn.mode).toBe('offline');
    expect(turn.metrics.provider).toBe('offline');
  });

  it('refuses bad input before the stream opens: a 4xx JSON error, never an error event after a 200', async () => {
    const id = await investigationWithLog();
    const empty = await post(id, { message: '   ' });
    expect(empty.status).toBe(400);
    expect(empty.headers.get('content-type')).toMatch(/json/);
    expect(((await empty.json()) as any).error.message).toMatch(/message must not be empty/);
    const unknown = await post('00000000-0000-4000-8000-000000000000', { message: 'why?' });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as any).error.code).toBe('not_found');
    const detail = await json(await call('GET', `/${id}`), 200);
    expect(detail.messages).toEqual([]);
  });
});

/** Records every charge and settlement (the tokens settled), so a test sees exactly what a turn put on the client's daily ceiling. */
class RecordingLimiter extends InProcessLimiter {
  readonly charged: number[] = [];
  override async chargeTokens(clientKey: string, tokens: number, now: number) {
    this.charged.push(tokens);
    return super.chargeTokens(clientKey, tokens, now);
  }
  // A turn reserves RUN_TOKEN_BUDGET at admission and settles it to what it used (issue 12, defect 1).
  override async settleTokens(reservation: TokenReservation, actualTokens: number, now: number) {
    this.charged.push(actualTokens);
    return super.settleTokens(reservation, actualTokens, now);
  }
}

describe("a turn's provider tokens are charged to the client's daily ceiling whatever the turn's end (defect 3)", () => {
  const served: StubBehaviour = {
    kind: 'tool-calls',
    calls: [{ name: 'read_file', args: { path: 'app.log', offset: 4310, limit: 10 } }],
    usage: { promptTokens: 400, completionTokens: 25 },
  };
  const limitedApp = () => {
    const limiter = new RecordingLimiter({ windowMs: 60_000, maxRequests: 100, dailyTokenCeiling: 300 });
    return { limiter, app: createApp(appDepsOf(agent, { limiter })) };
  };
  const turn = (on: ReturnType<typeof createApp>, id: string, message: string, accept = 'application/json') =>
    on.request(`/v1/investigations/${id}/turns`, { method: 'POST', headers: { ...JSON_AUTH, accept }, body: JSON.stringify({ message }) });

  for (const accept of ['application/json', 'text/event-stream']) {
    it(`a turn that fell back to the offline planner after a provider served 425 tokens is charged them (${accept})`, async () => {
      const id = await investigationWithLog();
      const { limiter, app: limited } = limitedApp();
      stub.script(served, { kind: 'status', status: 500 });
      const res = await turn(limited, id, 'Why is checkout getting 502s from orders-db?', accept);
      const body = accept === 'text/event-stream' ? ((await readSse(res)).at(-1)!.data as { turn: any }) : await json(res, 200);
      expect(body.turn.mode).toBe('offline');
      expect(body.turn.metrics.provider).toBe('offline');
      // The provider's tokens, not the offline planner's estimate of its own reading.
      expect(limiter.charged).toEqual([425]);
      // Over the 300-token ceiling now: the next turn is refused before it is read.
      const next = await turn(limited, id, '   ');
      expect(next.status).toBe(429);
      expect(((await next.json()) as any).error.code).toBe('daily_tokens_exhausted');
    });
  }

  it('a turn that throws after a provider served 425 tokens is charged them', async () => {
    const id = await investigationWithLog();
    const { limiter, app: limited } = limitedApp();
    stub.script(served);
    ledgerGrantsLeft = 1; // the first call is booked and served; the second finds the ledger down
    try {
      const res = await turn(limited, id, 'Why is checkout getting 502s from orders-db?');
      expect(res.status).toBeGreaterThanOrEqual(500);
    } finally {
      ledgerGrantsLeft = null;
    }
    expect(limiter.charged).toEqual([425]);
    const next = await turn(limited, id, '   ');
    expect(next.status).toBe(429);
  });
});
