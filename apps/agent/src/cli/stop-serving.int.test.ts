import { randomBytes } from 'node:crypto';
import { startStubOpenAIServer, type StubOpenAIServer } from '@sandscope/engine/testing';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { appDepsOf, createApp } from '../http/app.ts';
import { listen, type Listening } from '../http/listen.ts';
import { readSse, type SseEvent } from '../http/testing/sse-events.ts';
import { type AgentService, startAgentService } from '../service/compose.ts';
import { INTERRUPTED_BY_SHUTDOWN } from '../service/run-service.ts';
import { RedisSpendLedger } from '../spend/redis-spend-ledger.ts';
import { stopServing } from './stop-serving.ts';

/**
 * S-258, as a colleague's audit of the replicas found it (2026-12-07): SIGTERM to
 * a replica while a run waits on a provider that takes 15 s. `serve`'s shutdown
 * (stopServing) on a real socket, with the agent's own Postgres store, its Redis
 * limiter and spend ledger, and the stub provider: the run still going when the
 * grace ends must be stopped before any of them closes — its client told, the
 * run recorded interrupted, its token reservation and spend hold settled — and
 * nothing logged once the replica has stopped.
 *
 * Needs SANDSCOPE_TEST_DATABASE_URL (a database of its own is made and dropped)
 * and SANDSCOPE_TEST_REDIS_URL (keys under a prefix of its own, deleted after).
 */
const databaseUrl = process.env.SANDSCOPE_TEST_DATABASE_URL;
const redisUrl = process.env.SANDSCOPE_TEST_REDIS_URL;
const ready = Boolean(databaseUrl && redisUrl);
if (!ready) console.log('SKIP stop-serving.int.test.ts: set SANDSCOPE_TEST_DATABASE_URL and SANDSCOPE_TEST_REDIS_URL to stop a replica mid-run');

const TOKEN = `stop-serving-${randomBytes(16).toString('hex')}`;
const QUESTION = 'What is the connection pool ceiling for orders-db?';
const GRACE_MS = 500;
const RUN_TOKEN_BUDGET = 16_000;

/** A replica of its own for each case: its keys under its own prefix, its provider answering after `replyAfterMs`. */
interface Replica {
  readonly agent: AgentService;
  readonly listening: Listening;
  readonly stub: StubOpenAIServer;
  readonly ledger: RedisSpendLedger;
  readonly prefix: string;
  readonly lines: string[];
  readonly log: (line: string) => void;
}

describe.skipIf(!ready)('a replica stopped mid-run (S-258)', () => {
  const database = `sandscope_stop_${process.pid}_${randomBytes(3).toString('hex')}`;
  const prefixes = `sandscope-test:stop:${process.pid}:${randomBytes(3).toString('hex')}:`;
  const replicas: Replica[] = [];
  let admin: pg.Client | undefined;
  let redis: Redis | undefined;
  let url = '';

  beforeAll(async () => {
    admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    await admin.query(`create database ${database}`);
    const own = new URL(databaseUrl!);
    own.pathname = `/${database}`;
    url = own.toString();
    redis = new Redis(redisUrl!);
  });

  afterAll(async () => {
    for (const r of replicas) {
      await r.stub.close();
      await r.listening.close(0);
      await r.agent.close();
      await r.ledger.close();
    }
    if (redis) {
      const keys = await redis.keys(`${prefixes}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    }
    if (admin) {
      await admin.query(`drop database if exists ${database} with (force)`).catch(() => {});
      await admin.end();
    }
  });

  async function replica(replyAfterMs: number): Promise<Replica> {
    const prefix = `${prefixes}${replicas.length}:`;
    const lines: string[] = [];
    const log = (line: string) => void lines.push(line);
    // biome-ignore lint/suspicious/noThenProperty: the stub provider's delayed reply names what it then sends; nothing awaits this object
    const stub = await startStubOpenAIServer({ fallback: { kind: 'after', ms: replyAfterMs, then: { kind: 'reply', text: '{"claims":[]}' } } });
    const parsed = loadConfig(
      {
        AGENT_TOKEN: TOKEN,
        IP_SALT: 'stop-serving-salt-0123456789abcdef',
        DATABASE_URL: url,
        REDIS_URL: redisUrl!,
        REDIS_KEY_PREFIX: prefix,
        GROQ_API_KEY: `stub-${randomBytes(8).toString('hex')}`,
        GROQ_BASE_URL: stub.baseURL,
        RUN_TOKEN_BUDGET: String(RUN_TOKEN_BUDGET),
      },
      { requireToken: true },
    );
    if (!parsed.ok) throw new Error(parsed.message);
    const agent = await startAgentService({ config: parsed.config, log, providerTimeoutMs: 30_000 });
    const listening = await listen(createApp(appDepsOf(agent, { log })), { port: 0, host: '127.0.0.1', log });
    const ledger = new RedisSpendLedger({ url: redisUrl!, keyPrefix: `${prefix}spend:`, ceilingUsd: parsed.config.dailySpendCeilingUsd });
    await ledger.ready();
    const made = { agent, listening, stub, ledger, prefix, lines, log };
    replicas.push(made);
    return made;
  }

  /** What the limiter's keys of one kind (`held`: reserved, `tokens`: settled) add up to, today. */
  const limiterTokens = async (r: Replica, kind: 'held' | 'tokens') => {
    const keys = await redis!.keys(`${r.prefix}limit:*:${kind}:*`);
    const values = keys.length > 0 ? await redis!.mget(...keys) : [];
    return values.reduce((n, v) => n + Number(v ?? 0), 0);
  };

  /** Asks a question and follows its stream (`stream`, which ends with it); resolves once the run's model call has reached the provider. */
  async function askUntilProvider(r: Replica) {
    const response = await fetch(`${r.listening.url}/v1/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ question: QUESTION }),
    });
    expect(response.status).toBe(200);
    const seen: SseEvent[] = [];
    const stream = readSse(response, (event) => void seen.push(event)).then(
      (events) => ({ events, cut: undefined }),
      (error: unknown) => ({ events: seen, cut: error }),
    );
    const deadline = Date.now() + 20_000;
    while (r.stub.requests.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(r.stub.requests).toHaveLength(1);
    return { stream };
  }

  const runRow = async (runId: string) => {
    const reader = new pg.Client({ connectionString: url });
    await reader.connect();
    const { rows } = await reader.query<{ status: string; error: string | null }>('select status, error from run where id = $1', [runId]);
    await reader.end();
    return rows;
  };

  it('stops the run when the grace ends: its stream told to ask again, the run interrupted, tokens and spend hold settled, then nothing more said', async () => {
    // The provider of the audit: it answers, but only after 15 s.
    const r = await replica(15_000);
    const { stream } = await askUntilProvider(r);
    // Mid-run: the run's tokens are reserved, and its model call's money is held on the day's ledger.
    expect(await limiterTokens(r, 'held')).toBe(RUN_TOKEN_BUDGET);
    expect((await r.ledger.usage()).reservedUsd).toBeGreaterThan(0);

    const started = Date.now();
    await stopServing({ listening: r.listening, agent: r.agent, graceMs: GRACE_MS, log: r.log });
    const tookMs = Date.now() - started;
    r.log('stopped');
    const { events, cut } = await stream;

    // The client is told, in the stream, before it ends: the replica is shutting down, ask again.
    expect(cut).toBeUndefined();
    expect(events.filter((e) => e.event === 'node').length).toBeGreaterThan(0);
    const last = events.at(-1);
    expect(last?.event).toBe('error');
    const { error } = last!.data as { error: { code: string; message: string } };
    expect(error.code).toBe('shutting_down');
    const { runId } = events[0]!.data as { runId: string };
    expect(error.message).toMatch(
      new RegExp(`^Run ${runId} was stopped before it finished and is recorded interrupted\\. This agent replica is shutting down .*Ask again`),
    );
    // Long before the provider would have answered.
    expect(tookMs).toBeLessThan(GRACE_MS + 3_000);

    // Recorded by this replica as it stopped, not left for another to find.
    expect(await runRow(runId)).toEqual([{ status: 'interrupted', error: INTERRUPTED_BY_SHUTDOWN }]);
    // Nothing left held: the token reservation settled, the spend hold released.
    expect(await limiterTokens(r, 'held')).toBe(0);
    // Settled to what its served calls used — none answered — not charged its whole reservation for a run the replica stopped.
    expect(await limiterTokens(r, 'tokens')).toBe(0);
    expect((await r.ledger.usage()).reservedUsd).toBe(0);

    // Nothing is said once it has stopped, and nothing it said is a failure or a stack.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(r.lines.at(-1)).toBe('stopped');
    const said = r.lines.join('\n');
    expect(said).not.toMatch(/could not|Cannot use a pool|failed after the stream opened|\n\s+at /);
    expect(said).toMatch(/1 run\(s\) still going after 0\.5 s stopped/);
  }, 120_000);

  it('S-269: stops an investigation turn the same way: its stream told to ask again, its question recorded interrupted, its tokens and spend hold settled', async () => {
    const r = await replica(15_000);
    const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
    const created = await fetch(`${r.listening.url}/v1/investigations`, { method: 'POST', headers, body: JSON.stringify({ title: 'checkout 502s' }) });
    const { investigation } = (await created.json()) as { investigation: { id: string } };
    const id = investigation.id;
    const upload = await fetch(`${r.listening.url}/v1/investigations/${id}/files/app.log`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${TOKEN}` },
      body: '2024-05-14T03:12:01Z ERROR upstream timeout to payments-api\n',
    });
    expect(upload.status).toBe(201);
    const response = await fetch(`${r.listening.url}/v1/investigations/${id}/turns`, {
      method: 'POST',
      headers: { ...headers, accept: 'text/event-stream' },
      body: JSON.stringify({ message: 'why did payments-api time out?' }),
    });
    expect(response.status).toBe(200);
    const seen: SseEvent[] = [];
    const stream = readSse(response, (event) => void seen.push(event)).then(
      (events) => ({ events, cut: undefined }),
      (error: unknown) => ({ events: seen, cut: error }),
    );
    const deadline = Date.now() + 20_000;
    while (r.stub.requests.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(r.stub.requests).toHaveLength(1);
    expect(await limiterTokens(r, 'held')).toBe(RUN_TOKEN_BUDGET);
    expect((await r.ledger.usage()).reservedUsd).toBeGreaterThan(0);

    const started = Date.now();
    await stopServing({ listening: r.listening, agent: r.agent, graceMs: GRACE_MS, log: r.log });
    const tookMs = Date.now() - started;
    r.log('stopped');
    const { events, cut } = await stream;

    // Told in the stream, before it ends (the old shutdown cut it: no event at all, curl rc=18).
    expect(cut).toBeUndefined();
    const last = events.at(-1);
    expect(last?.event, JSON.stringify(events)).toBe('error');
    const { error } = last!.data as { error: { code: string; message: string } };
    expect(error.code).toBe('shutting_down');
    expect(error.message).toMatch(
      /^Turn (\d+) was stopped before it finished and is recorded interrupted; your question is kept\. This agent replica is shutting down .*Ask again/,
    );
    const turnId = Number(/^Turn (\d+)/.exec(error.message)![1]);
    expect(tookMs).toBeLessThan(GRACE_MS + 3_000);

    // Recorded before the store closed: the turn's `error` event, which marks its question interrupted (S-270), and no answer.
    const reader = new pg.Client({ connectionString: url });
    await reader.connect();
    const { rows: ends } = await reader.query<{ type: string; code: string }>(
      "select type, data->'error'->>'code' as code from investigation_turn_event where turn_id = $1 and type in ('result', 'error')",
      [turnId],
    );
    const { rows: answers } = await reader.query("select id from investigation_message where investigation_id = $1 and role = 'assistant'", [id]);
    await reader.end();
    expect(ends).toEqual([{ type: 'error', code: 'shutting_down' }]);
    expect(answers).toEqual([]);
    // Nothing left held, and nothing charged for a call no provider answered.
    expect(await limiterTokens(r, 'held')).toBe(0);
    expect(await limiterTokens(r, 'tokens')).toBe(0);
    expect((await r.ledger.usage()).reservedUsd).toBe(0);

    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(r.lines.at(-1)).toBe('stopped');
    const said = r.lines.join('\n');
    expect(said).not.toMatch(/could not|Cannot use a pool|failed after the stream opened|\n\s+at /);
    expect(said).toMatch(/1 investigation turn\(s\) still going after 0\.5 s stopped/);
  }, 120_000);

  it('a run that ends within the grace keeps its answer, and the replica stops as it ends, not a keep-alive timeout later', async () => {
    const r = await replica(300);
    const { stream } = await askUntilProvider(r);
    const started = Date.now();
    await stopServing({ listening: r.listening, agent: r.agent, graceMs: 10_000, log: r.log });
    const tookMs = Date.now() - started;
    const { events, cut } = await stream;
    expect(cut).toBeUndefined();
    expect(events.at(-1)?.event).toBe('result');
    const { runId } = events[0]!.data as { runId: string };
    expect(await runRow(runId)).toEqual([{ status: 'completed', error: null }]);
    expect(await limiterTokens(r, 'held')).toBe(0);
    expect((await r.ledger.usage()).reservedUsd).toBe(0);
    // The connection was closed when its response ended: server.close() alone waited out the 5 s keep-alive timeout.
    expect(tookMs).toBeLessThan(4_000);
    expect(r.lines.join('\n')).not.toMatch(/still going|could not|\n\s+at /);
  }, 120_000);
});
