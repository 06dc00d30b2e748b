import { startStore, type Store } from '@sandscope/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { type AgentService, startAgentService } from '../service/compose.ts';
import { appDepsOf, createApp } from './app.ts';

/**
 * S-213: the name in `…/files/<path>` is percent-decoded exactly once and kept exactly as sent, or refused with
 * `invalid_request` naming the part to change — on PUT, GET and DELETE alike. Driven in-process (STYLE 13); the
 * dot segments a URL resolves before any route sees them need the raw request line, in
 * investigation-file-names.int.test.ts.
 */
const TOKEN = 'test-token-0123456789abcdef0123456789';
const AUTH = { authorization: `Bearer ${TOKEN}` };

let store: Store;
let agent: AgentService;
let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  store = await startStore({ dataDir: 'memory://' });
  const parsed = loadConfig({ AGENT_TOKEN: TOKEN, IP_SALT: 'salt-for-tests-0123456789' }, { requireToken: true });
  if (!parsed.ok) throw new Error(parsed.message);
  agent = await startAgentService({ config: parsed.config, store, log: () => {} });
  app = createApp(appDepsOf(agent));
}, 120_000);

afterAll(async () => {
  await agent?.close();
  await store?.close();
});

const call = (method: string, path: string, body?: string) => app.request(`/v1/investigations${path}`, { method, headers: AUTH, body });

/** How a client names a file in a URL: each folder and the file percent-encoded (the website's `filePath`). */
const encoded = (name: string) => name.split('/').map(encodeURIComponent).join('/');

async function json(res: Response, status: number): Promise<any> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  return JSON.parse(text);
}

async function newInvestigation(title: string): Promise<string> {
  const res = await app.request('/v1/investigations', {
    method: 'POST',
    headers: { ...AUTH, 'content-type': 'application/json' },
    body: JSON.stringify({ title }),
  });
  return (await json(res, 201)).investigation.id;
}

const storedNames = async (id: string) => (await json(await call('GET', `/${id}/files`), 200)).files.map((f: { path: string }) => f.path);

describe('file names (S-213)', () => {
  it('keeps ordinary names exactly as sent, and reads and removes each by that name', async () => {
    const id = await newInvestigation('ordinary names');
    const names = [
      'app.log',
      'my app.log',
      'журнал событий.log',
      '日志/错误.log',
      'a/b/c.log',
      '100%.log',
      'a+b (1).log',
      'v1..2/x...log',
      '%2e%2e/f.log',
      'می\u200cخواهم.log',
      'team-\u{1f469}\u200d\u{1f4bb}.log',
    ];
    for (const name of names) expect((await json(await call('PUT', `/${id}/files/${encoded(name)}`, `${name}\n`), 201)).file.path).toBe(name);
    // An encoded "/" is a "/": the website sends a path with a dot segment that way, so the agent sees (and refuses) it.
    expect((await json(await call('PUT', `/${id}/files/logs%2Fedge.log`, 'edge\n'), 201)).file.path).toBe('logs/edge.log');
    expect(await storedNames(id)).toEqual([...names, 'logs/edge.log'].sort());
    for (const name of names) {
      expect((await json(await call('GET', `/${id}/files/${encoded(name)}`), 200)).file.content).toBe(`${name}\n`);
      expect(await json(await call('DELETE', `/${id}/files/${encoded(name)}`), 200)).toEqual({ deleted: name });
    }
    expect(await storedNames(id)).toEqual(['logs/edge.log']);
  });

  it('refuses a name it would otherwise decode leniently or keep under another name, on PUT, GET and DELETE, and stores nothing', async () => {
    const id = await newInvestigation('refused names');
    await json(await call('PUT', `/${id}/files/sp.log`, 'kept\n'), 201);
    const refused: [string, RegExp][] = [
      ['%ZZ.log', /malformed percent escape "%ZZ".*Send a "%" in a name as %25, e\.g\. %25ZZ\.log/],
      ['logs/100%.log', /malformed percent escape "%\.l"/],
      ['%FF.log', /percent escapes "%FF" that are not UTF-8 text/],
      ['a%E2%80%AEgol.exe', /U\+202E\), which shows the name in another order than it is stored; send the name without it/],
      ['x%C2%85.log', /a control character \(U\+0085\)/],
      // A line break was "There is no route" (404): the route's `.` did not match it.
      ['a%0Ab.log', /"a\\nb\.log" contains a control character/],
      ['z%E2%80%8B.log', /an invisible character \(U\+200B\)/],
      ['a//c.log', /has an empty folder name \("\/\/"\); send "a\/c\.log"/],
      ['a%2F.%2Fd.log', /has a "\." segment \(the folder it is in\); send "a\/d\.log"/],
      ['e.log/', /ends with "\/", which names a folder, not a file; send "e\.log"/],
      ['%20sp.log', /begins or ends with a space; send "sp\.log"/],
      ['~/sp.log', /would be kept as "sp\.log" \("~\/" is the workspace's top\); send "sp\.log"/],
      ['a%2F..%2Fsp.log', /leaves the workspace/],
    ];
    for (const [sent, why] of refused) {
      for (const method of ['PUT', 'GET', 'DELETE']) {
        const body = await json(await call(method, `/${id}/files/${sent}`, method === 'PUT' ? 'other\n' : undefined), 400);
        expect(body.error.code, `${method} ${sent}`).toBe('invalid_request');
        expect(body.error.message, `${method} ${sent}`).toMatch(why);
      }
    }
    expect(await storedNames(id)).toEqual(['sp.log']);
    expect((await json(await call('GET', `/${id}/files/sp.log`), 200)).file.content).toBe('kept\n');
  });

  it('refuses every bidi control and invisible format character, and never echoes one unescaped', async () => {
    const id = await newInvestigation('hidden characters');
    const hidden = [0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200b, 0x200e, 0x200f, 0xfeff, 0x061c, 0x00ad, 0x2028];
    for (const code of hidden) {
      const char = String.fromCodePoint(code);
      const body = await json(await call('PUT', `/${id}/files/${encoded(`exe${char}.log`)}`, 'x\n'), 400);
      expect(body.error.code).toBe('invalid_request');
      expect(body.error.message).toContain(`U+${code.toString(16).toUpperCase().padStart(4, '0')}`);
      expect(body.error.message).toContain(`\\u${code.toString(16).padStart(4, '0')}`);
      expect(body.error.message).not.toContain(char);
    }
    expect(await storedNames(id)).toEqual([]);
  });
});
