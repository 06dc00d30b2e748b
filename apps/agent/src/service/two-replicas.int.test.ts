import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { perMillionTokens } from '@sandscope/engine/models';
import { startStubOpenAIServer, type StubOpenAIServer, type StubRequest, type StubUsage } from '@sandscope/engine/testing';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSse, readSse, type SseEvent } from '../http/testing/sse-events.ts';
import { parseExposition, sampleOf } from './testing/exposition.ts';

/**
 * Issue 11 section 2, as an operator runs it: two `sandscope serve` processes on
 * one Postgres server and one Redis, requests alternating between them.
 * - the rate window, the daily token ceiling and the daily spend ceiling hold for
 *   the PAIR (a per-process count would let each replica spend its own);
 * - a run started on A is read on B and its stream resumed on B with Last-Event-ID;
 * - A killed with SIGKILL mid-run: B does not touch the run while A's lease is
 *   held, and marks it interrupted once the lease is really gone;
 * - each replica's /metrics carries its own `replica` label, so the pair can be summed.
 *
 * Needs SANDSCOPE_TEST_DATABASE_URL and SANDSCOPE_TEST_REDIS_URL. In CI (where
 * both are set) it never skips: missing either there is a failure.
 */
const databaseUrl = process.env.SANDSCOPE_TEST_DATABASE_URL;
const redisUrl = process.env.SANDSCOPE_TEST_REDIS_URL;
const ready = Boolean(databaseUrl && redisUrl);
const inCi = Boolean(process.env.CI);
if (!ready && !inCi)
  console.log('SKIP two-replicas.int.test.ts: set SANDSCOPE_TEST_DATABASE_URL and SANDSCOPE_TEST_REDIS_URL to run two agents on one Postgres and Redis');

const REPO_ROOT = resolve(import.meta.dirname, '../../../..');
const BIN = resolve(import.meta.dirname, '../../bin/sandscope.js');

/** The limits both replicas run with: small, so each is reached in a few requests. */
const RATE_LIMIT_MAX = 8;
const RUN_TOKEN_BUDGET = 10_000;
const DAILY_TOKEN_CEILING = 20_000;
const RUN_BUDGET_USD = 0.001;
const DAILY_SPEND_CEILING_USD = 0.005;
/** Groq's price in the provider table (providers.ts): the stub is configured as Groq. */
const GROQ = perMillionTokens(0.05, 0.08);

/**
 * What the stub bills: the most an honest provider could (one token per byte of
 * each message plus the template's overhead, and every output token allowed), so
 * each call's settlement is close to its reservation and the ceilings are reached fast.
 */
function worstCase(body: StubRequest['body']): StubUsage {
  const messages = (body.messages ?? []) as { content?: unknown }[];
  const prompt = messages.reduce<number>((n, m) => n + 8 + Buffer.byteLength(typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? '')), 16);
  return { promptTokens: prompt, completionTokens: Number(body['max_tokens'] ?? 1_024) };
}

const costOf = (u: StubUsage) => u.promptTokens * GROQ.inputUsdPerToken + u.completionTokens * GROQ.outputUsdPerToken;

function answerableQuestions(): string[] {
  return readFileSync(join(REPO_ROOT, 'corpus/questions.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as { question: string; label: string })
    .filter((q) => q.label === 'answerable')
    .map((q) => q.question);
}

interface Agent {
  readonly name: string;
  readonly url: string;
  readonly child: ChildProcess;
  output(): string;
}

/**
 * A provider in front of the stub that, once armed, holds the next call that
 * arrives until released (or its client goes): a run that stays mid-run for as
 * long as a test needs it to. The test sends one run at a time, so the call
 * held is that run's.
 */
async function holdingProvider(stub: StubOpenAIServer) {
  let armed: { arrive: () => void; released: Promise<void> } | null = null;
  const target = new URL(stub.baseURL);
  const server: Server = createServer((req, res) => {
    const pieces: Buffer[] = [];
    req.on('data', (d: Buffer) => pieces.push(d));
    req.on('end', () => {
      const body = Buffer.concat(pieces);
      const forward = () => {
        if (res.destroyed) return;
        const upstream = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        });
        upstream.on('error', () => res.destroy());
        upstream.end(body);
      };
      if (!armed) return forward();
      // Only the first call is held: the runs sent after it must reach the stub as usual.
      const hold = armed;
      armed = null;
      hold.arrive();
      void hold.released.then(forward);
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  let releaseAll = () => {};
  return {
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    /** Holds the next call; `reached` resolves when it arrives, `release` lets it through (and disarms, if none came). */
    hold() {
      let release = () => {};
      let arrive = () => {};
      const released = new Promise<void>((r) => (release = r));
      const reached = new Promise<void>((r) => (arrive = r));
      armed = { arrive, released };
      releaseAll = release;
      return {
        reached,
        release: () => {
          armed = null;
          release();
        },
      };
    },
    close: () =>
      new Promise<void>((done) => {
        armed = null;
        releaseAll();
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

describe.skipIf(!ready && !inCi)('two agent replicas on one Postgres and one Redis (issue 11 section 2)', () => {
  const token = `two-replicas-${randomBytes(16).toString('hex')}`;
  const database = `sandscope_2r_${process.pid}_${randomBytes(3).toString('hex')}`;
  const prefix = `sandscope-test:2r:${process.pid}:${randomBytes(3).toString('hex')}:`;
  const agents: Agent[] = [];
  let admin: pg.Client | undefined;
  let stub: StubOpenAIServer | undefined;
  let provider: Awaited<ReturnType<typeof holdingProvider>> | undefined;
  let dataDir: string | undefined;
  const questions = answerableQuestions();
  let next = 0;
  const question = () => questions[next++ % questions.length]!;

  beforeAll(async () => {
    if (!ready) return;
    admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    await admin.query(`create database ${database}`);
    const url = new URL(databaseUrl!);
    url.pathname = `/${database}`;
    stub = await startStubOpenAIServer({ fallback: { kind: 'reply', text: '{"claims":[]}', usage: worstCase } });
    provider = await holdingProvider(stub);
    dataDir = await mkdtemp(join(tmpdir(), 'sandscope-2r-'));
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME ?? tmpdir(),
      AGENT_TOKEN: token,
      IP_SALT: 'two-replicas-salt-0123456789abcdef',
      DATABASE_URL: url.toString(),
      REDIS_URL: redisUrl!,
      REDIS_KEY_PREFIX: prefix,
      SANDSCOPE_DATA_DIR: dataDir,
      GROQ_API_KEY: `stub-${randomBytes(8).toString('hex')}`,
      GROQ_BASE_URL: provider.baseURL,
      RATE_LIMIT_MAX: String(RATE_LIMIT_MAX),
      RATE_LIMIT_WINDOW_MS: '600000',
      RUN_TOKEN_BUDGET: String(RUN_TOKEN_BUDGET),
      DAILY_TOKEN_CEILING: String(DAILY_TOKEN_CEILING),
      RUN_BUDGET_USD: String(RUN_BUDGET_USD),
      DAILY_SPEND_CEILING_USD: String(DAILY_SPEND_CEILING_USD),
    };
    // Both at once, as a Deployment's replicas start: migrations and the corpus load must not trip over each other.
    agents.push(...(await Promise.all(['A', 'B'].map((name) => startAgent(name, { ...env, SANDSCOPE_REPLICA: `replica-${name}` })))));
  }, 240_000);

  afterAll(async () => {
    for (const agent of agents) if (agent.child.exitCode === null && agent.child.signalCode === null) agent.child.kill('SIGKILL');
    await Promise.all(agents.map((a) => new Promise((r) => (a.child.exitCode !== null || a.child.signalCode !== null ? r(null) : a.child.once('exit', r)))));
    await provider?.close();
    await stub?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
    if (admin) {
      await admin.query(`drop database if exists ${database} with (force)`).catch(() => {});
      await admin.end();
    }
    if (redisUrl) {
      const inspector = new Redis(redisUrl);
      const keys = await inspector.keys(`${prefix}*`);
      if (keys.length > 0) await inspector.del(...keys);
      inspector.disconnect();
    }
  });

  const [A, B] = [0, 1];
  const headers = (client: string) => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-forwarded-for': client });
  const post = (i: number, client: string, q: string) =>
    fetch(`${agents[i]!.url}/v1/runs`, { method: 'POST', headers: headers(client), body: JSON.stringify({ question: q }) });
  /**
   * Starts a run on `agent` that stays mid-run: its model call is held at the
   * provider. A question the gate refuses makes no call, so questions are tried
   * until one does.
   */
  const startHeldRun = async (agent: number, client: string) => {
    for (let attempt = 0; attempt < 10; attempt++) {
      const hold = provider!.hold();
      const response = await post(agent, client, question());
      expect(response.status).toBe(200);
      const events: SseEvent[] = [];
      const stream = readSse(response, (e) => void events.push(e));
      const reached = await Promise.race([
        hold.reached.then(() => true),
        stream.then(
          () => false,
          () => false,
        ),
      ]);
      if (reached) return { hold, events, stream, runId: await runIdOf(events) };
      hold.release();
    }
    throw new Error('no question reached the provider in 10 tries');
  };
  const getRun = async (i: number, id: string) =>
    (await (await fetch(`${agents[i]!.url}/v1/runs/${id}`, { headers: headers('10.9.9.9') })).json()) as { run: { status: string; error: string | null } };

  it('needs both servers in CI', () => {
    // In CI both URLs are set (.ci/run); a CI without them must fail here, not pass by skipping.
    expect(ready, 'SANDSCOPE_TEST_DATABASE_URL and SANDSCOPE_TEST_REDIS_URL must both be set').toBe(true);
    expect(agents).toHaveLength(2);
    for (const agent of agents) expect(agent.output()).toMatch(/spend ledger|booked in Redis/);
  });

  it('the rate window holds for the pair: RATE_LIMIT_MAX runs per client in all, whichever replica serves them', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < RATE_LIMIT_MAX + 2; i++) {
      // A question the gate refuses: no model call, so this spends neither tokens nor money.
      const res = await post(i % 2, '10.0.0.1', 'What is the capital of France?');
      statuses.push(res.status);
      await res.text();
    }
    expect(statuses).toEqual([...Array(RATE_LIMIT_MAX).fill(200), 429, 429]);

    // Scraped as a fleet: each replica labels its series with its name, and the pair's refusals add up to the two above.
    const scrapes = await Promise.all(agents.map(async (a) => parseExposition(await (await fetch(`${a.url}/metrics`)).text())));
    expect(scrapes.map((samples) => [...new Set(samples.map((x) => x.labels.replica))])).toEqual([['replica-A'], ['replica-B']]);
    expect(scrapes.reduce((n, samples) => n + (sampleOf(samples, 'sandscope_http_responses_total', { status: '429' })?.value ?? 0), 0)).toBe(2);
  });

  it('the daily token ceiling holds for the pair: one client uses at most the ceiling and one run reservation in all', async () => {
    let used = 0;
    let refused: string | undefined;
    for (let i = 0; i < 16 && !refused; i++) {
      const res = await post(i % 2, '10.0.0.2', question());
      const text = await res.text();
      if (res.status !== 200) {
        refused = (JSON.parse(text) as { error: { code: string } }).error.code;
        break;
      }
      const result = parseSse(text).find((e) => e.event === 'result')?.data as
        | { providers?: { kind: string; tokensIn?: number; tokensOut?: number }[] }
        | undefined;
      used += (result?.providers ?? []).filter((p) => p.kind === 'served').reduce((n, p) => n + (p.tokensIn ?? 0) + (p.tokensOut ?? 0), 0);
    }
    console.log(`token ceiling: ${used} tokens used by one client over both replicas; then refused: ${refused}`);
    expect(refused).toBe('daily_tokens_exhausted');
    expect(used).toBeGreaterThan(DAILY_TOKEN_CEILING / 2);
    expect(used).toBeLessThanOrEqual(DAILY_TOKEN_CEILING + RUN_TOKEN_BUDGET);
  });

  it('a run started on A is read on B while it runs, and its stream resumed on B from Last-Event-ID', async () => {
    const { hold, events: onA, stream: streamA, runId } = await startHeldRun(A, '10.0.0.3');
    const seen = onA.filter((e) => e.event === 'node').map((e) => (e.data as { seq: number }).seq);
    expect(runId).toMatch(/^[0-9a-f-]{36}$/);

    const whileRunning = await getRun(B, runId);
    expect(whileRunning.run.status).toBe('running');

    const lastSeen = Math.max(...seen);
    const resumed = await fetch(`${agents[B]!.url}/v1/runs/${runId}/events`, { headers: { ...headers('10.0.0.3'), 'last-event-id': String(lastSeen) } });
    expect(resumed.status).toBe(200);
    const onB = readSse(resumed);
    hold.release();
    const [eventsA, eventsB] = await Promise.all([streamA, onB]);
    const seqs = (events: SseEvent[]) => events.filter((e) => e.event === 'node').map((e) => (e.data as { seq: number }).seq);
    const fromB = seqs(eventsB);
    expect(fromB.length).toBeGreaterThan(0);
    expect(fromB[0]).toBe(lastSeen + 1);
    // B replays exactly what A sent after the resume point, in order, and ends with the run's final state.
    expect(fromB).toEqual(seqs(eventsA).filter((s) => s > lastSeen));
    const final = eventsB.at(-1)!;
    expect(final.event).toBe('run');
    expect((final.data as { status: string }).status).toBe('completed');
  });

  it('the daily spend ceiling holds for the pair; then A killed mid-run is marked interrupted by B only once its lease is gone', async () => {
    // A run on A held mid-call: its reservation is on the shared ledger while the others spend.
    const { runId: stuckId } = await startHeldRun(A, '10.0.1.0');

    // Alternating, a new client each time (no client's own token ceiling binds): only the deployment's money can stop them.
    let refusals = 0;
    for (let i = 0; i < 40 && refusals < 2; i++) {
      const res = await post(i % 2, `10.0.1.${i + 1}`, question());
      const text = await res.text();
      if (text.includes('DAILY_SPEND_CEILING_USD')) refusals++;
    }
    const billed = stub!.requests.reduce((usd, r) => usd + costOf(worstCase(r.body)), 0);
    console.log(
      `spend ceiling: $${billed.toFixed(6)} billed by the provider over both replicas against DAILY_SPEND_CEILING_USD $${DAILY_SPEND_CEILING_USD}; ${refusals} runs refused naming it`,
    );
    expect(refusals).toBe(2);
    expect(billed).toBeLessThanOrEqual(DAILY_SPEND_CEILING_USD);

    // A is alive: B reads its stuck run and leaves it running, however often it looks.
    for (let i = 0; i < 3; i++) expect((await getRun(B, stuckId)).run.status).toBe('running');

    const exited = new Promise((r) => agents[A]!.child.once('exit', (_code, signal) => r(signal)));
    agents[A]!.child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    let after = await getRun(B, stuckId);
    for (let i = 0; i < 50 && after.run.status === 'running'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      after = await getRun(B, stuckId);
    }
    expect(after.run.status).toBe('interrupted');
    expect(after.run.error).toMatch(/^interrupted: its process \(.+\) stopped before the run finished$/);
  }, 180_000);
});

/** The run id from a POST /v1/runs stream's first event that carries one. */
async function runIdOf(events: SseEvent[]): Promise<string> {
  for (let i = 0; i < 50; i++) {
    for (const e of events) {
      const data = e.data as { runId?: string };
      if (typeof data?.runId === 'string') return data.runId;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`no run id in the stream: ${JSON.stringify(events.slice(0, 3))}`);
}

async function startAgent(name: string, env: NodeJS.ProcessEnv): Promise<Agent> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--host', '127.0.0.1'], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const url = await new Promise<string>((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`agent ${name} did not listen within 180 s:\n${out}`)), 180_000);
    child.stdout!.on('data', () => {
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        done(m[1]!);
      }
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      fail(new Error(`agent ${name} exited (${code ?? signal}) before listening:\n${out}`));
    });
  });
  return { name, url, child, output: () => out };
}
