import { startStubOpenAIServer, type StubOpenAIServer } from '@sandscope/engine/testing';
import { startStore, type Store } from '@sandscope/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { type AgentService, startAgentService } from '../service/compose.ts';
import type { ProviderEventView, RunResultView } from '../service/run-views.ts';
import { appDepsOf, createApp } from './app.ts';
import { NoCacheStore } from './testing/run-burst.ts';
import { parseSse } from './testing/sse-events.ts';

/**
 * Issue 12, defect 3: a provider's error text reached clients verbatim, so a
 * provider that echoes the API key in its error body put the key on the run
 * page, the API and the stored `provider_event`. Driven end to end over a
 * real stub provider on 127.0.0.1 (port 0) configured the way an operator
 * configures one — GROQ_API_KEY and GROQ_BASE_URL — so the key really travels
 * in the Authorization header and really comes back in the body.
 */

const KEY = 'gsk_4f8a2c9e1b7d3f6a0c5e8b2d9f1a7c3e5b0d';
const TOKEN = 'test-token-0123456789abcdef0123456789';
/** Shaped like no key at all, so only the configured-secret scrub can catch it. */
const SALT = 'correct horse battery staple salt';
const AUTH = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
const QUESTION = 'What is the connection pool ceiling for orders-db?';
const POOL_CHUNK = 'architecture-order-path#orders-db-connection-pool-ceiling';

let store: Store;
let stub: StubOpenAIServer;
let agent: AgentService;
let app: ReturnType<typeof createApp>;
const logs: string[] = [];

beforeAll(async () => {
  store = await startStore({ dataDir: 'memory://' });
  stub = await startStubOpenAIServer();
  const parsed = loadConfig({ AGENT_TOKEN: TOKEN, IP_SALT: SALT, GROQ_API_KEY: KEY, GROQ_BASE_URL: stub.baseURL }, { requireToken: true });
  if (!parsed.ok) throw new Error(parsed.message);
  agent = await startAgentService({
    config: parsed.config,
    store,
    cacheStore: new NoCacheStore(),
    log: (line) => logs.push(line),
  });
  app = createApp(appDepsOf(agent, { log: (line) => logs.push(line) }));
}, 120_000);

afterAll(async () => {
  await agent?.close();
  await stub?.close();
  await store?.close();
});

/** Everything a run left behind or sent: the stream, the API's reading of it, every row that names it, the server log. */
async function everythingAbout(runId: string, stream: string): Promise<string> {
  const detail = await (await app.request(`/v1/runs/${runId}`, { headers: AUTH })).text();
  const list = await (await app.request('/v1/runs?pageSize=100', { headers: AUTH })).text();
  const rows: unknown[] = [];
  rows.push(await store.db.query('select * from run where id = $1', [runId]));
  for (const table of ['span', 'provider_event', 'spend_ledger', 'citation']) {
    rows.push(await store.db.query(`select * from ${table} where run_id = $1`, [runId]));
  }
  return [stream, detail, list, JSON.stringify(rows), ...logs].join('\n');
}

async function ask(): Promise<{ text: string; result: RunResultView }> {
  const res = await app.request('/v1/runs', { method: 'POST', headers: AUTH, body: JSON.stringify({ question: QUESTION }) });
  expect(res.status).toBe(200);
  const text = await res.text();
  const last = parseSse(text).at(-1);
  expect(last?.event, text.slice(-500)).toBe('result');
  return { text, result: last!.data as RunResultView };
}

describe('secrets never leave the agent (issue 12, defect 3)', () => {
  it('a provider echoing its key in a 401 body: the event says status and class, the excerpt is redacted; the key is nowhere', async () => {
    stub.script({ kind: 'echo-key', status: 401 });
    const { text, result } = await ask();
    expect(stub.requests.at(-1)?.headers.authorization).toBe(`Bearer ${KEY}`); // it really was sent, and echoed
    const providers = result.providers.map((p: ProviderEventView) => [p.provider, p.kind, p.status, p.message]);
    expect(providers).toEqual([
      ['groq', 'failed', 401, 'HTTP 401 authentication: "Incorrect API key provided: [redacted]"'],
      ['offline', 'served', undefined, undefined],
    ]);
    const all = await everythingAbout(result.runId, text);
    expect(all).toContain('HTTP 401 authentication');
    for (const secret of [KEY, TOKEN, SALT]) expect(all).not.toContain(secret);
  });

  it('every provider failing: the escalation, the attempt and the verifier say why without the key', async () => {
    stub.script({ kind: 'echo-key', status: 403, prefix: `salt=${SALT}; ` });
    const res = await app.request('/v1/runs', { method: 'POST', headers: AUTH, body: JSON.stringify({ question: QUESTION, failProviders: ['offline'] }) });
    const text = await res.text();
    const result = parseSse(text).at(-1)!.data as RunResultView;
    expect(result.terminal).toBe('escalate');
    expect(result.attempts[0]?.error?.message).toMatch(
      /^All 2 model providers failed: groq failed 403 \(HTTP 403 authentication: "salt=\[redacted\]; Incorrect API key provided: \[redacted\]"\)/,
    );
    const all = await everythingAbout(result.runId, text);
    for (const secret of [KEY, TOKEN, SALT]) expect(all).not.toContain(secret);
  });

  it('a provider that serves a draft repeating the token and the salt: scrubbed from the claims, spans, result and rows', async () => {
    const draft = JSON.stringify({ claims: [{ text: `The token is ${TOKEN} and the salt is ${SALT}.`, citations: [POOL_CHUNK] }] });
    stub.script({ kind: 'reply', text: draft }, { kind: 'reply', text: draft }, { kind: 'reply', text: draft });
    const { text, result } = await ask();
    expect(result.providers[0]).toMatchObject({ provider: 'groq', kind: 'served' });
    const all = await everythingAbout(result.runId, text);
    expect(all).toContain('The token is [redacted] and the salt is [redacted].');
    for (const secret of [KEY, TOKEN, SALT]) expect(all).not.toContain(secret);
  });

  it('a feedback note that pastes the token and the salt: scrubbed from the reply, the feedback list and the row', async () => {
    stub.script({ kind: 'reply', text: JSON.stringify({ claims: [{ text: 'The ceiling is 200 connections.', citations: [POOL_CHUNK] }] }) });
    const { result } = await ask();
    const note = `wrong: I used ${TOKEN} with salt ${SALT}`;
    const mark = await app.request(`/v1/runs/${result.runId}/feedback`, {
      method: 'POST',
      headers: AUTH,
      body: JSON.stringify({ label: 'wrong-answer', note }),
    });
    expect(mark.status).toBe(200);
    const list = await (await app.request('/v1/feedback', { headers: AUTH })).text();
    const rows = await store.db.query('select * from feedback where run_id = $1', [result.runId]);
    const all = [await mark.text(), list, JSON.stringify(rows), await everythingAbout(result.runId, '')].join('\n');
    expect(all).toContain('wrong: I used [redacted] with salt [redacted]');
    for (const secret of [KEY, TOKEN, SALT]) expect(all).not.toContain(secret);
  });
});
