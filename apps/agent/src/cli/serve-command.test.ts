import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startStubOpenAIServer, type StubOpenAIServer } from '@sandscope/engine/testing';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { NodeEventView, RunResultView } from '../service/run-views.ts';
import { readSse, type SseEvent } from '../http/testing/sse-events.ts';

/**
 * `sandscope serve` as a real process on a real socket — the socket is the
 * point here (STYLE 13): SSE framing over HTTP/1.1, the bearer check in front
 * of it, a start-up that refuses without a token, and a kill -9 in the middle
 * of a run followed by a restart on the same data directory.
 */

const BIN = resolve(import.meta.dirname, '../../bin/sandscope.js');
const TOKEN = 'socket-test-token-0123456789abcdef';
const QUESTION = 'What is the connection pool ceiling for orders-db?';

const children: ChildProcess[] = [];
const dirs: string[] = [];
const stubs: StubOpenAIServer[] = [];

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
});
afterAll(async () => {
  await Promise.all(stubs.map((s) => s.close()));
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

/** A clean environment: no database, Redis or provider settings leak in from the machine running the tests. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME ?? tmpdir(), IP_SALT: 'socket-test-salt-0123456789', ...extra };
}

function serve(env: Record<string, string>): { child: ChildProcess; url: Promise<string>; output: () => string } {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0'], { env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  const url = new Promise<string>((resolveUrl, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) resolveUrl(m[1]!);
    });
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code, signal) => reject(new Error(`serve exited (${code ?? signal}) before listening:\n${out}`)));
  });
  return { child, url, output: () => out };
}

async function tempDataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'sandscope-serve-'));
  dirs.push(dir);
  return dir;
}

describe('sandscope serve on a real socket', () => {
  it('refuses to start without AGENT_TOKEN, in one line, exit non-zero', async () => {
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0'], { env: childEnv({}), stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let stderr = '';
    let stdout = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    expect(code).not.toBe(0);
    expect(stdout).toBe('');
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/^sandscope: AGENT_TOKEN is required to serve/);
  }, 60_000);

  it('refuses, before anything starts, an AGENT_TOKEN no Authorization header can carry — one line, exit non-zero', async () => {
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0'], {
      env: childEnv({ AGENT_TOKEN: 'correct horse battery staple, 32 chars+', SANDSCOPE_DATA_DIR: await tempDataDir() }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let stderr = '';
    let stdout = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    expect(code).not.toBe(0);
    expect(stdout).toBe('');
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(/^sandscope: AGENT_TOKEN may hold only letters, digits/);
  }, 120_000);

  it('streams a run as SSE with the token, event by event while the run is in flight; 401 without it', async () => {
    // A provider that answers only after 1.5 s and then fails: the run is certainly in flight at hypothesise,
    // and the router moves on to the offline model afterwards.
    const slow = await startStubOpenAIServer({ fallback: { kind: 'stream-then-fail', chunks: ['{'], failure: 'error-event', pauseMs: 1_500 } });
    stubs.push(slow);
    const { url } = serve({ AGENT_TOKEN: TOKEN, SANDSCOPE_DATA_DIR: await tempDataDir(), GROQ_API_KEY: 'stub-key', GROQ_BASE_URL: slow.baseURL });
    const base = await url;

    const refused = await fetch(`${base}/v1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ question: QUESTION }),
    });
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('unauthorized');

    const res = await fetch(`${base}/v1/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ question: QUESTION }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    let midRun: { run: { status: string }; spans: unknown[] } | undefined;
    const events = await readSse(res, async (e) => {
      const node = e.data as NodeEventView;
      if (e.event === 'node' && node.node === 'hypothesise' && node.kind === 'start') {
        // Streamed, not buffered: this event reached us while the run is still waiting on the provider.
        midRun = (await (await fetch(`${base}/v1/runs/${node.runId}`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as typeof midRun;
      }
    });
    expect(midRun?.run.status).toBe('running');
    expect(midRun?.spans).toHaveLength(7);
    expect(events[0]).toMatchObject({ event: 'node', data: { node: 'classify', kind: 'start' } });
    expect(events.at(-1)?.event).toBe('result');
    const result = events.at(-1)!.data as RunResultView;
    expect(result.terminal).toBe('emit');
    expect(result.providers.map((p) => `${p.provider}:${p.kind}`)).toEqual(['groq:failed', 'offline:served']);

    const detail = await fetch(`${base}/v1/runs/${result.runId}`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(((await detail.json()) as { spans: unknown[] }).spans).toEqual(events.filter((e) => e.event === 'node').map((e) => e.data));

    // A request answered before the app (here `OPTIONS *`, S-212) is counted in /metrics as the app's answers are (S-219).
    const count400 = async () =>
      Number(/^sandscope_http_responses_total\{status="400"[^}]*\} (\d+)$/m.exec(await (await fetch(`${base}/metrics`)).text())?.[1] ?? 0);
    const before = await count400();
    const { port } = new URL(base);
    const answer = await new Promise<string>((done, fail) => {
      let text = '';
      const socket = connect(Number(port), '127.0.0.1', () => socket.write('OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n'));
      socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
      socket.on('close', () => done(text));
      socket.on('error', fail);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(await count400()).toBe(before + 1);
  }, 120_000);

  it('kill -9 mid-run: after a restart on the same data directory the run reads back as interrupted, with its spans', async () => {
    // A provider that accepts the request and never answers keeps the run in flight at hypothesise.
    const hang = await startStubOpenAIServer({ fallback: { kind: 'hang' } });
    stubs.push(hang);
    const dataDir = await tempDataDir();
    const first = serve({ AGENT_TOKEN: TOKEN, SANDSCOPE_DATA_DIR: dataDir, GROQ_API_KEY: 'stub-key', GROQ_BASE_URL: hang.baseURL });
    const base = await first.url;

    const res = await fetch(`${base}/v1/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ question: QUESTION }),
    });
    const killed = new Promise<NodeJS.Signals | null>((r) => first.child.on('exit', (_c, signal) => r(signal)));
    let runId: string | undefined;
    const seen: SseEvent[] = [];
    await readSse(res, async (e) => {
      seen.push(e);
      const node = e.data as NodeEventView;
      runId ??= node.runId;
      if (e.event === 'node' && node.node === 'hypothesise' && node.kind === 'start') {
        // The model call is in flight once the provider has the request; kill the process then.
        for (let i = 0; i < 200 && hang.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
        first.child.kill('SIGKILL');
      }
    }).catch(() => {});
    expect(await killed).toBe('SIGKILL');
    expect(hang.requests.length).toBeGreaterThan(0);
    expect(runId).toBeDefined();

    const second = serve({ AGENT_TOKEN: TOKEN, SANDSCOPE_DATA_DIR: dataDir });
    const again = await second.url;
    expect(second.output()).toContain('recovery: 1 run(s) left running by a stopped process marked interrupted');
    const detail = (await (await fetch(`${again}/v1/runs/${runId}`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as {
      run: { status: string; error: string; terminal: string | null };
      spans: NodeEventView[];
    };
    expect(detail.run.status).toBe('interrupted');
    expect(detail.run.terminal).toBeNull();
    expect(detail.run.error).toMatch(/^interrupted: its process/);
    const nodes = detail.spans.map((s) => `${s.node}:${s.kind}`);
    expect(nodes.slice(0, 7)).toEqual([
      'classify:start',
      'classify:end',
      'retrieve:start',
      'retrieve:end',
      'assess_evidence:start',
      'assess_evidence:end',
      'hypothesise:start',
    ]);
    // Everything the client saw before the kill is on the record.
    expect(nodes.length).toBeGreaterThanOrEqual(seen.filter((e) => e.event === 'node').length);
  }, 180_000);
});
