import { randomUUID } from 'node:crypto';
import { INCIDENT_CONFIG, incidentLog } from '@sandscope/engine/testing';
import { startStore, type Store } from '@sandscope/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { type AgentService, startAgentService } from '../service/compose.ts';
import { appDepsOf, createApp } from './app.ts';

/**
 * /v1/investigations (issue 10) driven in-process with `app.request()` (STYLE
 * 13), as app.test.ts drives the rest of the API, over one embedded PGlite and
 * the offline planner.
 */
const TOKEN = 'test-token-0123456789abcdef0123456789';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const JSON_AUTH = { ...AUTH, 'content-type': 'application/json' };
const FILE_CAP = 1_000_000;

let store: Store;
let agent: AgentService;
let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  store = await startStore({ dataDir: 'memory://' });
  const parsed = loadConfig(
    { AGENT_TOKEN: TOKEN, IP_SALT: 'salt-for-tests-0123456789', INVESTIGATION_FILE_MAX_BYTES: String(FILE_CAP) },
    { requireToken: true },
  );
  if (!parsed.ok) throw new Error(parsed.message);
  agent = await startAgentService({ config: parsed.config, store, log: () => {} });
  app = createApp(appDepsOf(agent));
}, 120_000);

afterAll(async () => {
  await agent?.close();
  await store?.close();
});

const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = JSON_AUTH) =>
  app.request(`/v1/investigations${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body),
  });

async function json(res: Response, status: number): Promise<any> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return JSON.parse(text);
}

async function errorOf(res: Response, status: number, code: string): Promise<string> {
  const body = await json(res, status);
  expect(body.error.code).toBe(code);
  expect(body.error.message).not.toMatch(/\n\s+at /);
  return body.error.message as string;
}

describe('/v1/investigations', () => {
  it('needs the bearer token like every /v1 route', async () => {
    expect((await call('GET', '', undefined, {})).status).toBe(401);
  });

  it('create, list, rename, two turns over uploaded files, and a reload that still shows cited lines and metrics', async () => {
    const { investigation } = await json(await call('POST', '', { title: 'checkout 502s' }), 201);
    expect(investigation.title).toBe('checkout 502s');
    const id = investigation.id as string;
    expect((await json(await call('GET', ''), 200)).investigations.map((i: { id: string }) => i.id)).toContain(id);
    expect((await json(await call('PATCH', `/${id}`, { title: 'checkout 502s, 1 May' }), 200)).investigation.title).toBe('checkout 502s, 1 May');

    const log = incidentLog();
    expect(log.split('\n').length - 1).toBe(5000);
    expect((await json(await call('PUT', `/${id}/files/app.log`, log, AUTH), 201)).file).toMatchObject({
      path: 'app.log',
      status: 'ok',
      sizeBytes: Buffer.byteLength(log),
    });
    await json(await call('PUT', `/${id}/files/conf/values.json`, INCIDENT_CONFIG, AUTH), 201);
    expect((await json(await call('GET', `/${id}/files`), 200)).files.map((f: { path: string }) => f.path)).toEqual(['app.log', 'conf/values.json']);
    expect((await json(await call('GET', `/${id}/files/conf/values.json`), 200)).file.content).toBe(INCIDENT_CONFIG);

    const first = (await json(await call('POST', `/${id}/turns`, { message: 'Why is checkout getting 502s from orders-db?' }), 200)).turn;
    expect(first.citations).toContainEqual({ kind: 'file', path: 'app.log', startLine: 4400, endLine: 4400 });
    expect(first.toolCalls.map((t: { tool: string }) => t.tool)).toContain('read_file');

    const second = (await json(await call('POST', `/${id}/turns`, { message: 'and when did it start?' }), 200)).turn;
    expect(second.claims[0].citations[0]).toEqual({ kind: 'file', path: 'app.log', startLine: 4312, endLine: 4318 });
    expect(second.metrics).toMatchObject({ provider: 'offline', costUsd: 0 });
    // S-200: a follow-up says which question it was read with, kept with the turn and in its answer text.
    expect(second.notes).toEqual([expect.stringMatching(/^Read as a follow-up to “Why is checkout getting 502s from orders-db\?”/)]);
    expect(second.answer).toContain('Note: Read as a follow-up to');
    expect(first.notes).toEqual([]);

    // Reload: the conversation, its citations and each answer's metrics come back from the store (seed #22).
    const shown = await json(await call('GET', `/${id}`), 200);
    expect(shown.investigation.title).toBe('checkout 502s, 1 May');
    expect(shown.files.map((f: { status: string }) => f.status)).toEqual(['ok', 'ok']);
    expect(shown.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(shown.messages[3].metrics).toEqual(second.metrics);
    expect(shown.messages[3].result.citations).toEqual(second.citations);
    expect(shown.messages[3].result.notes).toEqual(second.notes);
    expect(shown.messages[0].metrics).toBeNull();

    await json(await call('DELETE', `/${id}/files/conf/values.json`), 200);
    await errorOf(await call('GET', `/${id}/files/conf/values.json`), 404, 'not_found');
    await json(await call('DELETE', `/${id}`), 200);
    await errorOf(await call('GET', `/${id}`), 404, 'not_found');
  });

  it('returns and stores the runbook passages a turn cites, with their text, so the page prints their steps as steps (S-063)', async () => {
    const { investigation } = await json(await call('POST', '', { title: 'pool alert' }), 201);
    const id = investigation.id as string;
    // Not "what do i do when OrdersDbPoolSaturated fires?": that sits on the answer line (DEFECT_LOG S-087), and this
    // test is about the passages a turn returns, not the gate.
    const message = 'orders-db connection pool is exhausted, what should I do?';
    const turn = (await json(await call('POST', `/${id}/turns`, { message }), 200)).turn;
    const cited = turn.citations.filter((c: { kind: string }) => c.kind === 'passage').map((c: { chunkId: string }) => c.chunkId);
    expect(cited.length).toBeGreaterThan(0);
    expect(turn.passages.map((p: { chunkId: string }) => p.chunkId)).toEqual(cited);
    expect(turn.passages.every((p: { text: string }) => p.text.length > 0)).toBe(true);
    const shown = await json(await call('GET', `/${id}`), 200);
    expect(shown.messages[1].result.passages).toEqual(turn.passages);
    await json(await call('DELETE', `/${id}`), 200);
  });

  it("stores each upload's passage embeddings (hashing, the default) and a turn worded unlike the log still cites its line", async () => {
    const { investigation } = await json(await call('POST', '', { title: 'worded differently' }), 201);
    const id = investigation.id as string;
    const edge = ['09:12:00 INFO edge started', '09:12:01 WARN payments-api request throttled by upstream rate limiter', '09:12:02 INFO edge ready'].join('\n');
    await json(await call('PUT', `/${id}/files/edge.log`, edge, AUTH), 201);
    await json(await call('PUT', `/${id}/files/app.log`, incidentLog(), AUTH), 201);
    const stored = await store.db.query<{ path: string; n: number; embedder: string }>(
      'select path, count(*)::int as n, min(embedder_id) as embedder from investigation_file_passage where investigation_id = $1 group by path order by path',
      [id],
    );
    // 5,000 lines in passages of 40 → 125; the three-line log → 1.
    expect(stored).toEqual([
      { path: 'app.log', n: 125, embedder: 'hashing-768-v1' },
      { path: 'edge.log', n: 1, embedder: 'hashing-768-v1' },
    ]);
    const { turn } = await json(await call('POST', `/${id}/turns`, { message: 'Was anything throttling requests?' }), 200);
    expect(turn.citations).toContainEqual({ kind: 'file', path: 'edge.log', startLine: 2, endLine: 2 });
    expect(turn.answer).toMatch(/edge\.log line 2 does not use the words .* but says something similar in meaning/);
  });

  it('answers a turn that quotes a log line with an emoji where the quote is cut (an unpaired surrogate was a 500)', async () => {
    const { investigation } = await json(await call('POST', '', { title: 'emoji at the cut' }), 201);
    const id = investigation.id as string;
    // The emoji's two UTF-16 halves sit at units 299 and 300: the planner quotes a line's first 300.
    const line = `ERROR checkout ${'x'.repeat(299 - 'ERROR checkout '.length)}\u{1F600} tail`;
    await json(await call('PUT', `/${id}/files/app.log`, `ok\n${line}\nok\n`, AUTH), 201);
    const { turn } = await json(await call('POST', `/${id}/turns`, { message: 'why the checkout error?' }), 200);
    expect(turn.citations).toContainEqual({ kind: 'file', path: 'app.log', startLine: 2, endLine: 2 });
    expect(turn.answer).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
    expect((await json(await call('GET', `/${id}`), 200)).messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant']);
  });

  it("refuses a binary upload with the workspace's remedy, not the runbook corpus's", async () => {
    const { investigation } = await json(await call('POST', '', { title: 'binary upload' }), 201);
    const message = await errorOf(await call('PUT', `/${investigation.id}/files/dump.bin`, new Uint8Array([0x89, 0x50, 0, 1]), AUTH), 400, 'invalid_request');
    expect(message).toMatch(/dump\.bin was not added: it is binary, not text \(a NUL byte at offset 2\)\. Add text files only/);
    // The corpus's remedy ("Remove it from the corpus or give it an extension other than .md") is no use here.
    expect(message).not.toMatch(/corpus|extension other than/);
  });

  it('refuses bad input with a clear 4xx in the one vocabulary, and loses nothing', async () => {
    const { investigation } = await json(await call('POST', '', { title: 'bad input' }), 201);
    const id = investigation.id as string;
    await json(await call('PUT', `/${id}/files/app.log`, 'kept\n', AUTH), 201);

    expect(await errorOf(await call('PUT', `/${id}/files/image.log`, new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]), AUTH), 400, 'invalid_request')).toMatch(
      /image\.log was not added: it is binary.*Add text files only/,
    );
    expect(await errorOf(await call('PUT', `/${id}/files/big.log`, 'x'.repeat(FILE_CAP + 1), AUTH), 413, 'payload_too_large')).toMatch(
      /INVESTIGATION_FILE_MAX_BYTES/,
    );
    expect(await errorOf(await call('PUT', `/${id}/files/..%2Fetc%2Fpasswd`, 'x', AUTH), 400, 'invalid_request')).toMatch(/leaves the workspace/);
    expect(await errorOf(await call('POST', `/${id}/turns`, { message: '   ' }), 400, 'invalid_request')).toMatch(/message must not be empty/);
    expect(await errorOf(await call('POST', `/${id}/turns`, { message: 'ok', question: 'extra' }), 400, 'invalid_request')).toMatch(
      /unknown field\(s\): question/,
    );
    expect(await errorOf(await call('POST', '', { title: '' }), 400, 'invalid_request')).toMatch(/title is empty/);
    expect(await errorOf(await call('POST', `/${randomUUID()}/turns`, { message: 'hello?' }), 404, 'not_found')).toMatch(/no investigation/);
    expect(await errorOf(await call('GET', '/not-an-id'), 404, 'not_found')).toMatch(/no investigation not-an-id/);

    const after = await json(await call('GET', `/${id}`), 200);
    expect(after.files.map((f: { path: string }) => f.path)).toEqual(['app.log']);
    expect(after.messages).toEqual([]);
  });
});
