import { request } from 'node:http';
import { startStore, type Store } from '@sandscope/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { type AgentService, startAgentService } from '../service/compose.ts';
import { appDepsOf, createApp } from './app.ts';
import { type Listening, listen } from './listen.ts';

/**
 * S-213: `PUT …/files/a/%2e%2e/b.log` stored `b.log`. The URL parser resolves `.` and `..` segments, `%2e`
 * spellings included, before any route sees the path, so only the request line as it came off the socket shows
 * them: a real socket, because the socket is the point (STYLE 13), and node:http, because fetch would resolve
 * the segments itself before sending.
 */
const TOKEN = 'test-token-0123456789abcdef0123456789';

let store: Store;
let agent: AgentService;
let server: Listening;

beforeAll(async () => {
  store = await startStore({ dataDir: 'memory://' });
  const parsed = loadConfig({ AGENT_TOKEN: TOKEN, IP_SALT: 'salt-for-tests-0123456789' }, { requireToken: true });
  if (!parsed.ok) throw new Error(parsed.message);
  agent = await startAgentService({ config: parsed.config, store, log: () => {} });
  server = await listen(createApp(appDepsOf(agent)), { port: 0, host: '127.0.0.1' });
}, 120_000);

afterAll(async () => {
  await server?.close(0);
  await agent?.close();
  await store?.close();
});

/** The request line's target sent exactly as written. */
function send(method: string, target: string, body?: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: server.port, method, path: target, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('dot segments in the request line (S-213)', () => {
  it('refuses a "." or ".." segment, however spelled, on PUT, GET and DELETE, and replaces nothing', async () => {
    const created = await send('POST', '/v1/investigations', JSON.stringify({ title: 'dot segments' }));
    const files = `/v1/investigations/${created.body.investigation.id}/files`;
    expect((await send('PUT', `${files}/b.log`, 'kept\n')).status).toBe(201);
    for (const [path, segment] of [
      ['a/%2e%2e/b.log', '%2e%2e'],
      ['a/%2E%2e/b.log', '%2E%2e'],
      ['a/.%2e/b.log', '.%2e'],
      ['a/../b.log', '..'],
      ['%2e/b.log', '%2e'],
      ['a/./b.log', '.'],
    ]) {
      for (const method of ['PUT', 'GET', 'DELETE']) {
        const res = await send(method, `${files}/${path}`, method === 'PUT' ? 'other\n' : undefined);
        expect(res.status, `${method} ${path}`).toBe(400);
        expect(res.body.error.code).toBe('invalid_request');
        expect(res.body.error.message).toContain(`has a "${segment}" segment`);
        expect(res.body.error.message).toMatch(/so the file would be kept under another name\. Name each folder, never "\." or "\.\."/);
      }
    }
    const listed = await send('GET', files);
    expect(listed.body.files.map((f: { path: string }) => f.path)).toEqual(['b.log']);
    expect((await send('GET', `${files}/b.log`)).body.file.content).toBe('kept\n');
  });

  it('keeps names with dots that are not dot segments, sent over the socket as written', async () => {
    const created = await send('POST', '/v1/investigations', JSON.stringify({ title: 'dotted names' }));
    const files = `/v1/investigations/${created.body.investigation.id}/files`;
    for (const [target, name] of [
      ['.env', '.env'],
      ['...log', '...log'],
      ['v1..2/a.log', 'v1..2/a.log'],
      ['my%20app.log', 'my app.log'],
      ['a/b/c.log', 'a/b/c.log'],
      ['%252e%252e/d.log', '%2e%2e/d.log'],
    ]) {
      expect((await send('PUT', `${files}/${target}`, `${name}\n`)).body.file.path, target).toBe(name);
      expect((await send('GET', `${files}/${target}`)).body.file.content, target).toBe(`${name}\n`);
    }
  });
});
