import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { startStore, type Store } from '@sandscope/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { appDepsOf, createApp } from '../http/app.ts';
import { SESSION_COOKIE } from '../http/session.ts';
import { parseSse } from '../http/testing/sse-events.ts';
import { type AgentService, startAgentService } from './compose.ts';
import type { NodeEventView, RunResultView } from './run-views.ts';

/**
 * The service on a Postgres server (SANDSCOPE_TEST_DATABASE_URL): the same run,
 * record and approval path as the PGlite tests, plus what only a server shows —
 * Debian's PostgreSQL has no pgvector, so vector search must say it is degraded.
 * The server is shared, so this file uses its own schema and drops it afterwards.
 */
const url = process.env.SANDSCOPE_TEST_DATABASE_URL;
if (!url) console.log('agent service on a Postgres server: skipped — set SANDSCOPE_TEST_DATABASE_URL to run it');

const TOKEN = 'pg-test-token-0123456789abcdef';
const AUTH = { authorization: `Bearer ${TOKEN}` };

describe.skipIf(!url)('the agent service on a Postgres server', () => {
  const schema = `sandscope_agent_${process.pid}_${randomBytes(4).toString('hex')}`;
  let admin: pg.Client;
  let store: Store;
  let agent: AgentService;
  let app: ReturnType<typeof createApp>;
  let pgvector: boolean;

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    pgvector = (await admin.query("select 1 from pg_available_extensions where name = 'vector'")).rows.length > 0;
    store = await startStore({ url: url!, schema });
    const parsed = loadConfig({ AGENT_TOKEN: TOKEN, DATABASE_URL: url }, { requireToken: true });
    if (!parsed.ok) throw new Error(parsed.message);
    agent = await startAgentService({ config: parsed.config, store, log: () => {} });
    app = createApp(appDepsOf(agent));
  }, 120_000);

  afterAll(async () => {
    await agent?.close();
    await store?.close();
    await admin?.query(`drop schema if exists ${schema} cascade`);
    await admin?.end();
  });

  it('streams a run whose spans, claims and provider events read back from the server', async () => {
    const res = await app.request('/v1/runs', {
      method: 'POST',
      headers: { ...AUTH, 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'What is the connection pool ceiling for orders-db?' }),
    });
    expect(res.status).toBe(200);
    const events = parseSse(await res.text());
    const result = events.at(-1)!.data as RunResultView;
    expect(events.at(-1)!.event).toBe('result');
    expect(result.terminal).toBe('emit');
    const cookie = new RegExp(`${SESSION_COOKIE}=[^;]+`).exec(res.headers.get('set-cookie') ?? '')![0];
    const detail = (await (await app.request(`/v1/runs/${result.runId}`, { headers: { ...AUTH, cookie } })).json()) as {
      run: { status: string; sessionOwned: boolean };
      spans: NodeEventView[];
      claims: { citations: { chunkId: string; text: string }[] }[];
      providerEvents: unknown[];
    };
    expect(detail.run).toMatchObject({ status: 'completed', sessionOwned: true });
    expect(detail.spans).toEqual(events.filter((e) => e.event === 'node').map((e) => e.data));
    expect(detail.claims.length).toBeGreaterThan(0);
    for (const c of detail.claims) for (const x of c.citations) expect(x.text).toBe(agent.kb.chunk(x.chunkId)!.text);
    expect(detail.providerEvents).toHaveLength(1);
  });

  it('approves a gated run into a new linked run', async () => {
    const res = await app.request('/v1/runs', {
      method: 'POST',
      headers: { ...AUTH, 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'Should we fail over orders-db to the replica?', workload: 'change' }),
    });
    const gated = parseSse(await res.text()).at(-1)!.data as RunResultView;
    expect(gated.terminal).toBe('await_approval');
    const cookie = new RegExp(`${SESSION_COOKIE}=[^;]+`).exec(res.headers.get('set-cookie') ?? '')![0];
    const approved = await app.request(`/v1/runs/${gated.runId}/approve`, { method: 'POST', headers: { ...AUTH, cookie } });
    expect(approved.status).toBe(201);
    const child = ((await approved.json()) as { run: RunResultView }).run;
    const parent = (await (await app.request(`/v1/runs/${gated.runId}`, { headers: AUTH })).json()) as {
      run: { terminal: string };
      children: { id: string }[];
    };
    expect(parent.run.terminal).toBe('await_approval');
    expect(parent.children.map((c) => c.id)).toEqual([child.runId]);
  });

  it('/healthz says which vector search this server gives: in-process (degraded) without pgvector', async () => {
    const health = (await (await app.request('/healthz')).json()) as {
      status: string;
      parts: { database: { detail: string }; vectorSearch: { status: string; detail: string } };
    };
    expect(health.parts.database.detail).toBe('postgres');
    if (pgvector) {
      expect(health.parts.vectorSearch).toEqual({ status: 'ok', detail: 'pgvector' });
    } else {
      expect(health.status).toBe('degraded');
      expect(health.parts.vectorSearch.status).toBe('degraded');
      expect(health.parts.vectorSearch.detail).toMatch(/^in-process/);
      expect(agent.startup.join('\n')).toMatch(/vector search: in-process \(DEGRADED/);
    }
  });
});
