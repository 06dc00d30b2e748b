import {
  approvalResponseSchema,
  nodeEventSchema,
  type Outcome,
  providerEventSchema,
  runDetailSchema,
  runListSchema,
  runResultSchema,
  type RunStatus,
} from '@sandscope/api';
import { corpusSchema, libraryViewSchema } from '@sandscope/api/corpus';
import { estateSchema } from '@sandscope/api/estate';
import { evalLatestSchema } from '@sandscope/api/evaluation';
import { graphSchema } from '@sandscope/api/graph';
import { providerListSchema } from '@sandscope/api/providers';
import { type RunStatus as StoredRunStatus, startStore, type Store } from '@sandscope/store';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { type AgentService, startAgentService } from '../service/compose.ts';
import { appDepsOf, createApp } from './app.ts';
import { SESSION_COOKIE } from './session.ts';
import { parseSse } from './testing/sse-events.ts';

/**
 * The agent's responses against the shared contract (@sandscope/api) the
 * website parses them with: the reference reads behind the data, architecture,
 * console and evaluation pages; then, for a run of every outcome, the stream's
 * events and result, the list, the detail and an approval. A field the agent
 * drops or renames fails here, not in a browser.
 */

// The contract's run statuses are the store's.
expectTypeOf<RunStatus>().toEqualTypeOf<StoredRunStatus>();

const TOKEN = 'contract-token-0123456789abcdef012345';
const AUTH = { authorization: `Bearer ${TOKEN}` };

let store: Store;
let agent: AgentService;
let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  store = await startStore({ dataDir: 'memory://' });
  const config = loadConfig({ AGENT_TOKEN: TOKEN, IP_SALT: 'salt-for-contract-tests-0123' }, { requireToken: true });
  if (!config.ok) throw new Error(config.message);
  agent = await startAgentService({ config: config.config, store, log: () => {} });
  app = createApp(appDepsOf(agent));
}, 120_000);

afterAll(async () => {
  await agent?.close();
  await store?.close();
});

async function read(path: string): Promise<unknown> {
  const res = await app.request(path, { headers: AUTH });
  expect(res.status, path).toBe(200);
  return res.json();
}

describe('reference reads satisfy the shared contract', () => {
  it('GET /v1/corpus: the documents, passages, gaps and question counts', async () => {
    const corpus = corpusSchema.parse(await read('/v1/corpus'));
    expect(corpus.chunks.length).toBeGreaterThan(0);
  });

  it('GET /v1/library: the library named and sized, without its text', async () => {
    const library = libraryViewSchema.parse(await read('/v1/library'));
    expect(library.passages).toBe(corpusSchema.parse(await read('/v1/corpus')).chunks.length);
  });

  it('GET /v1/estate: the services, dependencies and faults', async () => {
    expect(estateSchema.parse(await read('/v1/estate')).services.length).toBeGreaterThan(0);
  });

  it('GET /v1/graph: the nodes with their files, and the edges', async () => {
    expect(graphSchema.parse(await read('/v1/graph')).nodes.some((n) => n.file !== null)).toBe(true);
  });

  it('GET /v1/providers: offline last', async () => {
    expect(providerListSchema.parse(await read('/v1/providers')).providers.at(-1)?.name).toBe('offline');
  });

  it('GET /v1/eval/latest: the report and its rows (docs/evaluation.json when no run is recorded), with the replayed reader committed beside it', async () => {
    const latest = evalLatestSchema.parse(await read('/v1/eval/latest'));
    expect(latest.questions.length).toBeGreaterThan(0);
    expect(latest.replayedReader?.command).toMatch(/^npm run reader:replay/);
    expect(latest.replayedReader?.groups?.length).toBeGreaterThan(0);
  });
});

async function run(body: Record<string, unknown>) {
  const res = await app.request('/v1/runs', { method: 'POST', headers: { ...AUTH, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status).toBe(200);
  const cookie = new RegExp(`${SESSION_COOKIE}=[^;]+`).exec(res.headers.get('set-cookie') ?? '')![0];
  const events = parseSse(await res.text());
  for (const e of events.filter((x) => x.event === 'node')) nodeEventSchema.parse(e.data);
  for (const e of events.filter((x) => x.event === 'provider')) providerEventSchema.parse(e.data);
  const last = events[events.length - 1]!;
  expect(last.event).toBe('result');
  return { result: runResultSchema.parse(last.data), cookie };
}

async function readBack(runId: string, cookie: string) {
  const detail = runDetailSchema.parse(await (await app.request(`/v1/runs/${runId}`, { headers: { ...AUTH, cookie } })).json());
  const list = runListSchema.parse(await (await app.request('/v1/runs?page=1&pageSize=100', { headers: AUTH })).json());
  return { detail, listed: list.runs.find((r) => r.id === runId)! };
}

const CASES: [Outcome, Record<string, unknown>][] = [
  // issue 13: every provider failed — the gate said answered, the run escalated; it must never read as answered.
  // A question no other case asks: the semantic cache would otherwise serve a draft without calling a provider.
  ['escalated', { question: 'Who approves an emergency change?', failProviders: ['offline'] }],
  ['answered', { question: 'What is the connection pool ceiling for orders-db?' }],
  ['refused', { question: 'How do we rotate TLS certificates?' }],
  ['awaiting_approval', { question: 'Can we raise the orders-db connection pool ceiling during an incident?', workload: 'change' }],
];

describe('run responses satisfy the shared contract, with one outcome everywhere', () => {
  for (const [outcome, body] of CASES) {
    it(`${outcome}: the streamed result, the list line and the detail agree`, async () => {
      const { result, cookie } = await run(body);
      expect(result.outcome).toBe(outcome);
      const { detail, listed } = await readBack(result.runId, cookie);
      expect(listed).toMatchObject({ outcome, verdict: result.verdict, terminal: result.terminal });
      expect(detail.run).toMatchObject({ outcome, verdict: result.verdict, terminal: result.terminal });
      if (outcome === 'escalated') expect([result.claims, detail.claims]).toEqual([[], []]);
    });
  }

  it('an approval answers, and the gated run it came from still reads as awaiting approval', async () => {
    const gated = await run({ question: 'Can we raise the orders-db connection pool ceiling during an incident?', workload: 'change' });
    const res = await app.request(`/v1/runs/${gated.result.runId}/approve`, { method: 'POST', headers: { ...AUTH, cookie: gated.cookie } });
    expect(res.status).toBe(201);
    const { run: approval } = approvalResponseSchema.parse(await res.json());
    expect(approval.outcome).toBe(approval.verdict === 'partial' ? 'partial' : 'answered');
    expect((await readBack(approval.runId, gated.cookie)).detail.run.outcome).toBe(approval.outcome);
    expect((await readBack(gated.result.runId, gated.cookie)).detail.run.outcome).toBe('awaiting_approval');
  });
});
