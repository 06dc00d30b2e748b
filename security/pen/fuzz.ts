/**
 * Pen test: fuzz every route in the router's table, with the right token so
 * the attack reaches validation and the handlers, against a real
 * `sandscope serve` on loopback. Ids and file paths that traverse, carry NUL,
 * unpaired surrogates (as invalid UTF-8), SQL and markup; bodies that are not
 * JSON, not UTF-8, nested thousands deep, carry thousands of keys, are over
 * MAX_BODY_BYTES (declared, and chunked with no length); NUL and lone
 * surrogates in every text field (defect 5); random JSON from a seeded
 * generator (SECURITY_FUZZ_SEED replays a run).
 *
 * Expected of every answer: no 5xx; an error is `{ error: { code, message } }`
 * with a code of the API's vocabulary and that code's status, at most 4 KB
 * (defect 8); a 200 stream never ends in `internal` (defect 5's shape); no
 * answer holds a file from outside the workspace or the token. Afterwards the
 * agent is still healthy and logged no bug.
 */
import { contractBreach, type RawRequest, type RawResponse, send } from '../lib/http.ts';
import { runCheck } from '../lib/report.ts';
import { concretePath, type Route, routeName, routeTable } from '../lib/routes.ts';
import { startAgent } from '../lib/service.ts';

const SEED = Number(process.env.SECURITY_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
/** Random bodies per route that takes one, on top of the fixed hostile set. */
const RANDOM_BODIES = Number(process.env.SECURITY_FUZZ_RANDOM ?? 8);
const FILE_MAX_BYTES = 65_536;

/** mulberry32: small, seeded, good enough to pick attacks reproducibly. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = prng(SEED);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;

const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udc00y',
  '\udbff\udfff',
  '\ufeff',
  '\u202e',
  '%00',
  '../../etc/passwd',
  "' OR 1=1 --",
  '"; DROP TABLE run; --',
  '<script>window.__pwned=1</script>',
  '{{7*7}}',
  '${7*7}',
  '\\',
  '\r\n\r\nHTTP/1.1 200 OK',
  'é'.repeat(300),
  '😀'.repeat(50),
  'a'.repeat(1_001),
  'What is the connection pool ceiling for orders-db?',
];

function randomString(): string {
  if (random() < 0.5) return pick(NASTY_STRINGS);
  const length = Math.floor(random() * 40);
  let s = '';
  for (let i = 0; i < length; i += 1) {
    const r = random();
    // Mostly printable, sometimes a control character, a lone surrogate half or an astral character.
    s +=
      r < 0.7
        ? String.fromCharCode(32 + Math.floor(random() * 95))
        : r < 0.8
          ? String.fromCharCode(Math.floor(random() * 32))
          : r < 0.9
            ? String.fromCharCode(0xd800 + Math.floor(random() * 0x800))
            : String.fromCodePoint(0x1f300 + Math.floor(random() * 200));
  }
  return s;
}

function randomJson(depth = 0): unknown {
  const r = random();
  if (depth > 4 || r < 0.3) return pick([null, true, false, 0, -1, 1e308, -0.5, Number.MAX_SAFE_INTEGER + 2, randomString(), randomString()]);
  if (r < 0.55) return Array.from({ length: Math.floor(random() * 4) }, () => randomJson(depth + 1));
  const keys = ['question', 'message', 'title', 'label', 'note', 'workload', 'failProviders', '__proto__', 'constructor', randomString()];
  return Object.fromEntries(Array.from({ length: 1 + Math.floor(random() * 3) }, () => [pick(keys), randomJson(depth + 1)]));
}

/** The body field each route reads: a hostile value there reaches the validator of that field, not only the shape check. */
function fieldOf(route: Route): string {
  if (route.path.endsWith('/feedback')) return 'note';
  if (route.path.endsWith('/turns')) return 'message';
  if (route.path.startsWith('/v1/investigations')) return 'title';
  return 'question';
}

function hostileBodies(route: Route): { label: string; body: string | Buffer; chunked?: boolean; type?: string }[] {
  const field = fieldOf(route);
  const base = (value: unknown) => JSON.stringify(field === 'note' ? { label: 'helpful', note: value } : { [field]: value });
  const manyKeys = `{${Array.from({ length: 1_500 }, (_, i) => `"k${i}":0`).join(',')}}`;
  return [
    { label: 'empty', body: '' },
    { label: 'not json', body: 'question=what' },
    { label: 'truncated json', body: `{"${field}":"a` },
    { label: 'json null', body: 'null' },
    { label: 'json string', body: '"a question"' },
    { label: 'json array', body: '[1,2,3]' },
    { label: 'NUL in field', body: base('before\u0000after') },
    { label: 'lone high surrogate in field', body: base('x\ud800y') },
    { label: 'lone low surrogate in field', body: base('\udfffx') },
    { label: 'raw NUL byte in body', body: Buffer.from(`{"${field}":"a\u0000b"}`.replace('\\u0000', '\u0000')) },
    { label: 'invalid UTF-8', body: Buffer.from([0x7b, 0x22, 0x71, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0xff, 0x22, 0x7d]) },
    { label: 'field is a number', body: base(42) },
    { label: 'field is an operator object', body: base({ $gt: '' }) },
    { label: '__proto__ pollution', body: `{"${field}":"x","__proto__":{"polluted":true}}` },
    { label: 'constructor pollution', body: '{"constructor":{"prototype":{"polluted":true}}}' },
    { label: '1,500 unknown keys (defect 8)', body: manyKeys },
    { label: 'one 12 KB key (defect 8)', body: `{"${'k'.repeat(12_000)}":1}` },
    { label: 'arrays 5,000 deep', body: `${'['.repeat(5_000)}${']'.repeat(5_000)}` },
    { label: 'objects 2,000 deep', body: `${'{"a":'.repeat(2_000)}1${'}'.repeat(2_000)}` },
    { label: 'field 1,001 characters', body: base('q'.repeat(1_001)) },
    { label: 'oversize 1 MB declared', body: Buffer.alloc(1_000_000, 0x20) },
    { label: 'oversize 1 MB chunked, no length', body: Buffer.alloc(1_000_000, 0x20), chunked: true },
    { label: 'json as text/plain', body: base('hello'), type: 'text/plain' },
    { label: 'form encoded', body: `${field}=hello`, type: 'application/x-www-form-urlencoded' },
  ];
}

const HOSTILE_IDS = [
  'pen-unknown',
  '00000000-0000-0000-0000-000000000000',
  '..',
  '.',
  '%2e%2e',
  '..%2F..%2F..%2Fetc%2Fpasswd',
  '%2F..%2F..%2Fetc%2Fpasswd',
  '%00',
  'a%00b',
  '%ED%A0%80',
  '%ED%B0%80x',
  '%FF%FE',
  '%zz',
  '%',
  "'%20OR%201=1--",
  '%3Cscript%3Ewindow.__pwned%3D1%3C%2Fscript%3E',
  '__proto__',
  'constructor',
  '-1',
  '1e309',
  'a'.repeat(4_000),
  '%F0%9F%98%80',
];

// Backslashes go percent-encoded: a raw one is refused by Node's HTTP parser (an empty 400) before any code of ours runs.
const HOSTILE_PATHS = [
  '../../../../etc/passwd',
  '..%2F..%2F..%2F..%2Fetc%2Fpasswd',
  '%2Fetc%2Fpasswd',
  '/etc/passwd',
  'a/../../../etc/passwd',
  '..%5C..%5C..%5Cetc%5Cpasswd',
  'notes.md%00.txt',
  '%00',
  '.',
  '..',
  './.',
  'a/./b.md',
  '~/.ssh/id_rsa',
  '%ED%A0%80.md',
  `${'d/'.repeat(200)}x.md`,
  `${'x'.repeat(3_000)}.md`,
  'C:%5CWindows%5Cwin.ini',
  '%252e%252e%252fetc%252fpasswd',
];

const HOSTILE_QUERIES = [
  'page=0',
  'page=-1',
  'page=abc',
  'pageSize=1000',
  'page=1e309',
  'page[]=1',
  'pageSize=%00',
  'page=9007199254740993',
  'page=1&page=2',
  'pageSize=%ED%A0%80',
  `page=${'9'.repeat(5_000)}`,
];

await runCheck('fuzz (every route)', async (t) => {
  const routes = routeTable();
  const agent = await startAgent({ env: { RATE_LIMIT_MAX: '1000000', INVESTIGATION_FILE_MAX_BYTES: String(FILE_MAX_BYTES) } });
  const auth = { authorization: `Bearer ${agent.token}` };
  const json = { ...auth, 'content-type': 'application/json' };
  t.line(`seed ${SEED} (SECURITY_FUZZ_SEED=${SEED} replays it); ${routes.length} routes from the router's table`);

  // Real ids, so hostile paths and bodies also reach handlers that found what they asked for.
  const created = await send(agent.url, { method: 'POST', path: '/v1/investigations', headers: json, body: JSON.stringify({ title: 'fuzz target' }) });
  const investigationId = (JSON.parse(created.text) as { investigation: { id: string } }).investigation.id;
  await send(agent.url, {
    method: 'PUT',
    path: `/v1/investigations/${investigationId}/files/notes.md`,
    headers: auth,
    body: 'orders-db pool exhausted at 10:02\n',
  });
  const asked = await send(agent.url, {
    method: 'POST',
    path: '/v1/runs',
    headers: json,
    body: JSON.stringify({ question: 'What is the connection pool ceiling for orders-db?' }),
  });
  const runId = /"runId":"([^"]+)"/.exec(asked.text)?.[1];
  if (!runId) throw new Error(`could not start a run to fuzz around: ${asked.status} ${asked.text.slice(0, 200)}`);

  const judge = (label: string, res: RawResponse | Error, allowReset: boolean) => {
    t.count('requests');
    if (res instanceof Error) {
      // A server may cut an upload it has refused before reading it all; for anything else a cut is a crash.
      t.count(`status reset`);
      if (!allowReset) t.finding(`${label}: connection failed: ${res.message}`);
      return;
    }
    t.count(`status ${res.status}`);
    const code = /"code":"([a-z_]+)"/.exec(res.text)?.[1];
    if (res.status >= 400 && code) t.count(`code ${code}`);
    if (res.status >= 500) t.count('5xx');
    const breach = contractBreach(res);
    if (breach) t.finding(`${label}: ${breach}`);
    if (res.text.includes('root:x:0:0') || res.text.includes('[extensions]')) t.finding(`${label}: a file from outside the workspace came back`);
    if (res.text.includes(agent.token)) t.finding(`${label}: the token came back`);
  };
  const attempt = async (label: string, req: RawRequest, allowReset = false) => {
    let res: RawResponse | Error;
    try {
      res = await send(agent.url, { timeoutMs: 60_000, ...req });
    } catch (error) {
      res = error instanceof Error ? error : new Error(String(error));
    }
    judge(label, res, allowReset);
  };

  for (const route of routes) {
    const name = routeName(route);
    const hasBody = route.method === 'POST' || route.method === 'PUT' || route.method === 'PATCH';
    const isFile = route.path.includes(':path');
    const realId = route.path.startsWith('/v1/investigations') ? investigationId : runId;
    const valid = (p: string) => (p === 'path' ? 'notes.md' : realId);
    const plainBody = isFile ? 'a note\n' : hasBody ? JSON.stringify({ [fieldOf(route)]: 'fuzz' }) : undefined;
    const headers = isFile ? auth : hasBody ? json : auth;

    // Hostile ids, then hostile file paths, in the URL.
    if (route.path.includes(':id')) {
      for (const id of HOSTILE_IDS) {
        const path = concretePath(route.path, (p) => (p === 'id' ? id : valid(p)));
        await attempt(`${name} id=${id.slice(0, 40)}`, { method: route.method, path, headers, ...(plainBody !== undefined ? { body: plainBody } : {}) });
      }
    }
    if (isFile) {
      for (const file of HOSTILE_PATHS) {
        const path = concretePath(route.path, (p) => (p === 'path' ? file : realId));
        await attempt(`${name} path=${file.slice(0, 40)}`, { method: route.method, path, headers, ...(plainBody !== undefined ? { body: plainBody } : {}) });
      }
    }
    if (route.method === 'GET' && !route.path.includes(':')) {
      for (const query of HOSTILE_QUERIES) await attempt(`${name}?${query.slice(0, 40)}`, { method: 'GET', path: `${route.path}?${query}`, headers });
    }
    if (!hasBody) continue;

    const target = concretePath(route.path, valid);
    if (isFile) {
      // Uploads are raw bytes: binary, NUL, a UTF-16 byte-order mark, invalid UTF-8, over INVESTIGATION_FILE_MAX_BYTES.
      const files: [string, Buffer, boolean?][] = [
        ['empty file', Buffer.alloc(0)],
        ['NUL bytes', Buffer.from('a\u0000b\u0000c')],
        ['UTF-16 BOM', Buffer.from([0xff, 0xfe, 0x61, 0x00])],
        ['invalid UTF-8', Buffer.from([0x61, 0xed, 0xa0, 0x80, 0x62])],
        ['random bytes', Buffer.from(Array.from({ length: 512 }, () => Math.floor(random() * 256)))],
        ['over the file limit, declared', Buffer.alloc(FILE_MAX_BYTES * 3, 0x61)],
        ['over the file limit, chunked', Buffer.alloc(FILE_MAX_BYTES * 3, 0x61), true],
      ];
      for (const [label, body, chunked] of files)
        await attempt(`${name} ${label}`, { method: route.method, path: target, headers: auth, body, chunked: chunked ?? false }, label.startsWith('over'));
      continue;
    }
    for (const b of hostileBodies(route)) {
      await attempt(
        `${name} body: ${b.label}`,
        { method: route.method, path: target, headers: { ...auth, 'content-type': b.type ?? 'application/json' }, body: b.body, chunked: b.chunked ?? false },
        b.label.startsWith('oversize'),
      );
    }
    for (let i = 0; i < RANDOM_BODIES; i += 1) {
      const body = JSON.stringify(random() < 0.5 ? { [fieldOf(route)]: randomString() } : randomJson());
      await attempt(`${name} random body #${i} ${body.slice(0, 60)}`, { method: route.method, path: target, headers: json, body });
    }
  }

  const health = await send(agent.url, { method: 'GET', path: '/healthz' });
  t.expect(health.status === 200, `after the fuzz /healthz answered ${health.status}: ${health.text.slice(0, 200)}`);
  const bugs = agent
    .output()
    .split('\n')
    .filter((l) => / failed: /.test(l));
  t.expect(bugs.length === 0, `the agent logged ${bugs.length} bug(s), first: ${bugs[0]?.slice(0, 300)}`);
  t.line(`requests ${t.counts.get('requests')}; 5xx ${t.counts.get('5xx') ?? 0}; statuses ${t.summary('status ')}`);
  t.line(`error codes ${t.summary('code ')}`);
  t.line(`bugs in the agent's log ${bugs.length}; /healthz after ${health.status}`);
  await agent.stop();
});
