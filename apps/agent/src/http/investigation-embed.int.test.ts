import { startStubOpenAIServer, type StubOpenAIServer, INCIDENT_CONFIG, incidentLog } from '@sandscope/engine/testing';
import { startStore, type Store } from '@sandscope/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { type AgentService, startAgentService } from '../service/compose.ts';
import { appDepsOf, createApp } from './app.ts';

/**
 * Seed #15 at the API: uploaded files go through the remote embedder
 * (KB_EMBED_BASE_URL → the stub's /v1/embeddings). A failure marks that file
 * `error` with the reason in the file list; the file stays searchable by its
 * text, and nothing else is lost.
 */
const TOKEN = 'test-token-0123456789abcdef0123456789';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const JSON_AUTH = { ...AUTH, 'content-type': 'application/json' };

let store: Store;
let stub: StubOpenAIServer;
let agent: AgentService;
let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  store = await startStore({ dataDir: 'memory://' });
  stub = await startStubOpenAIServer({ fallback: { kind: 'embeddings' } });
  const parsed = loadConfig(
    {
      AGENT_TOKEN: TOKEN,
      IP_SALT: 'salt-for-tests-0123456789',
      KB_EMBED_BASE_URL: stub.baseURL,
      KB_EMBED_TIMEOUT: '0.3',
      KB_EMBED_NUM_RETRIES: '1',
      KB_EMBED_BATCH_SIZE: '64',
      KB_EMBED_API_KEY: 'embed-key-0123456789',
    },
    { requireToken: true },
  );
  if (!parsed.ok) throw new Error(parsed.message);
  agent = await startAgentService({ config: parsed.config, store, log: () => {} });
  app = createApp(appDepsOf(agent));
}, 120_000);

afterAll(async () => {
  await agent?.close();
  await stub?.close();
  await store?.close();
});

const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = JSON_AUTH) =>
  app.request(`/v1/investigations${path}`, { method, headers, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
const upload = (id: string, path: string, text: string) => call('PUT', `/${id}/files/${path}`, text, { ...AUTH, 'content-type': 'text/plain' });

async function json(res: Response, status: number): Promise<any> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return JSON.parse(text);
}

describe('uploaded files through the remote embedder (seed #15)', () => {
  it('embeds a 5,000-line log in KB_EMBED_BATCH_SIZE batches, in order, with the key; the file is ok', async () => {
    const { investigation } = await json(await call('POST', '', { title: 'embedded' }), 201);
    const before = stub.requests.length;
    const { file } = await json(await upload(investigation.id, 'app.log', incidentLog()), 201);
    expect(file).toMatchObject({ path: 'app.log', status: 'ok', error: null });
    const sent = stub.requests.slice(before);
    // 5,000 lines in passages of 40 → 125 passages → batches of 64 and 61.
    expect(sent.map((r) => (r.body.input as string[]).length)).toEqual([64, 61]);
    expect(sent.every((r) => r.path === '/v1/embeddings' && r.headers.authorization === 'Bearer embed-key-0123456789')).toBe(true);
    expect((sent[0]!.body.input as string[])[0]).toMatch(/^2024-05-01T08:00:01Z INFO/);
    expect((sent[1]!.body.input as string[]).at(-1)).toMatch(/ INFO GET \/health 200 1ms$/);
  });

  it('a timeout then success on the retry leaves the file ok', async () => {
    const { investigation } = await json(await call('POST', '', { title: 'retried' }), 201);
    const before = stub.requests.length;
    stub.script({ kind: 'hang' });
    const { file } = await json(await upload(investigation.id, 'values.json', INCIDENT_CONFIG), 201);
    expect(file).toMatchObject({ status: 'ok', error: null });
    expect(stub.requests.length - before).toBe(2);
  });

  it('exhausted retries mark THAT file error with the reason in the file list; it stays searchable and nothing else is lost', async () => {
    const { investigation } = await json(await call('POST', '', { title: 'embedder down' }), 201);
    const id = investigation.id as string;
    await json(await upload(id, 'values.json', INCIDENT_CONFIG), 201);
    stub.script({ kind: 'hang' }, { kind: 'hang' });
    const { file } = await json(await upload(id, 'app.log', incidentLog()), 201);
    expect(file.status).toBe('error');
    expect(file.error).toMatch(
      /^embedding failed: embedding batch 1 of 2 \(64 inputs\) failed after 2 attempts: no reply within 300 ms \(KB_EMBED_TIMEOUT\)\. The file is stored and searchable/,
    );

    const { files } = await json(await call('GET', `/${id}/files`), 200);
    expect(files.map((f: any) => [f.path, f.status])).toEqual([
      ['app.log', 'error'],
      ['values.json', 'ok'],
    ]);
    expect(files[0].error).toBe(file.error);
    expect(files[0].sizeBytes).toBe(Buffer.byteLength(incidentLog()));

    // Searchable by its text: the (offline) turn finds and cites its lines.
    const { turn } = await json(await call('POST', `/${id}/turns`, { message: 'Why is checkout getting 502s from orders-db?' }), 200);
    expect(turn.citations).toContainEqual({ kind: 'file', path: 'app.log', startLine: 4312, endLine: 4318 });
  });

  it('a turn while the embedder is down searches literally, and waits on the embedder once, not once per search', async () => {
    const { investigation } = await json(await call('POST', '', { title: 'embedder down mid-turn' }), 201);
    const id = investigation.id as string;
    await json(await upload(id, 'app.log', incidentLog()), 201);
    stub.script({ kind: 'hang' }, { kind: 'hang' });
    const before = stub.requests.length;
    const { turn } = await json(await call('POST', `/${id}/turns`, { message: 'Why is checkout getting 502s from orders-db?' }), 200);
    expect(turn.citations).toContainEqual({ kind: 'file', path: 'app.log', startLine: 4312, endLine: 4318 });
    // Several search_files calls; one embedding attempt and its one retry (KB_EMBED_NUM_RETRIES=1), then none.
    expect(turn.toolCalls.filter((c: { tool: string }) => c.tool === 'search_files').length).toBeGreaterThan(1);
    expect(stub.requests.length - before).toBe(2);
    expect(turn.toolCalls.every((c: { ok: boolean }) => c.ok)).toBe(true);
  });
});
