/**
 * `npm run load` — the agent service under load, measured on a real socket
 * (STYLE 13: the socket is the point).
 *
 * Starts the service in this process on 127.0.0.1 port 0 — offline model, an
 * in-memory PGlite, the full record of every run (spans, provider events, spend,
 * claims) — and drives `POST /v1/runs` with autocannon:
 *
 * 1. throughput: a limit high enough never to refuse, a bounded duration, a fixed
 *    number of connections; runs/s and p50/p99 latency of the WHOLE streamed run;
 * 2. the limiter: a low limit for the one client autocannon is; exactly the limit
 *    may be admitted and every other request must be a 429 (D-013: the status is
 *    counted, not "anything ≥ 400").
 *
 * Writes docs/LOAD.md (date, machine, settings, figures, targets met or not).
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { resolve } from 'node:path';
import { startStore } from '@sandscope/store';
import { loadConfig, appDepsOf, createApp, listen, InProcessLimiter, startAgentService } from 'sandscope';
import { UserError } from 'sandscope/user-error';
import { runScript } from './script-boundary.ts';

// The body is left unindented: its multi-line template literals are the report's text.
await runScript('load', async () => {
/** What this script reads of autocannon's result (the package ships no types). */
interface AutocannonResult {
  readonly duration: number;
  readonly errors: number;
  readonly timeouts: number;
  readonly non2xx: number;
  readonly '2xx': number;
  readonly statusCodeStats: Record<string, { count: number }>;
  readonly requests: { readonly total: number; readonly average: number };
  readonly latency: { readonly p50: number; readonly p90: number; readonly p99: number; readonly max: number; readonly average: number };
}
interface AutocannonOptions {
  readonly url: string;
  readonly connections: number;
  readonly duration?: number;
  /** Stop after this many requests instead of after `duration`. */
  readonly amount?: number;
  readonly timeout?: number;
  /** Worker threads firing the requests, so the load generator does not take the service's thread. */
  readonly workers?: number;
  readonly requests: readonly { method: string; path: string; headers: Record<string, string>; body: string }[];
}
const autocannon = createRequire(import.meta.url)('autocannon') as (options: AutocannonOptions) => Promise<AutocannonResult>;

const positive = (name: string, fallback: number): number => {
  const raw = process.env[name];
  const n = raw === undefined ? fallback : Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new UserError(`${name} must be a whole number of at least 1 (got "${raw}").`);
  return n;
};
const DURATION_S = positive('LOAD_DURATION_S', 10);
const CONNECTIONS = positive('LOAD_CONNECTIONS', 10);
/** The limiter phase sends ten times the limit, so it is surely reached whatever this machine's speed. */
const LOW_LIMIT = 25;
const LIMIT_PHASE_REQUESTS = LOW_LIMIT * 10;
const TARGET_RUNS_PER_S = 300;
const TARGET_P99_MS = 100;
const OUT = resolve(import.meta.dirname, '../docs/LOAD.md');

/** A mix of what the service sees: answered, refused, and a change that stops for approval. */
const QUESTIONS = [
  { question: 'What is the connection pool ceiling for orders-db?' },
  { question: 'How do we rotate TLS certificates?' },
  { question: 'Can we raise the orders-db connection pool ceiling in production now?', workload: 'change' },
  { question: 'Who approves an emergency change?', workload: 'change' },
  { question: 'What is the connection pool ceiling for events-bus?' },
];

const token = randomBytes(24).toString('hex');
const parsed = loadConfig(
  { AGENT_TOKEN: token, IP_SALT: randomBytes(16).toString('hex'), RATE_LIMIT_MAX: '1000000000', DAILY_TOKEN_CEILING: '1000000000000' },
  { requireToken: true },
);
if (!parsed.ok) throw new Error(parsed.message);

console.log('starting the service (in-memory PGlite, offline model)…');
const store = await startStore({ dataDir: 'memory://' });
const agent = await startAgentService({ config: parsed.config, store, log: () => {} });
const requests = QUESTIONS.map((body) => ({
  method: 'POST',
  path: '/v1/runs',
  headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
  body: JSON.stringify(body),
}));

async function runsByStatus(): Promise<Record<string, number>> {
  const rows = await store.db.query<{ status: string; n: number }>('select status, count(*)::int as n from run group by status');
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

// Phase 0: where one run's time goes, sequentially, before any concurrency.
const SEQUENTIAL_RUNS = 100;
const asked = (i: number) => {
  const q = QUESTIONS[i % QUESTIONS.length]!;
  return { question: q.question, workload: (q.workload ?? 'triage') as 'triage' | 'change' };
};
for (let i = 0; i < 20; i++) await agent.orchestrator.run(asked(i));
let t0 = performance.now();
for (let i = 0; i < SEQUENTIAL_RUNS; i++) await agent.orchestrator.run(asked(i));
const graphMs = (performance.now() - t0) / SEQUENTIAL_RUNS;
t0 = performance.now();
for (let i = 0; i < SEQUENTIAL_RUNS; i++) await agent.runs.start({ ...asked(i), sessionId: 'load-test-session-0123456789abcdef' });
const recordedMs = (performance.now() - t0) / SEQUENTIAL_RUNS;
const [writes] = await store.db.query<{ n: number }>(
  `select ((select count(*) from span) + (select count(*) from provider_event) + (select count(*) from spend_ledger)
          + (select count(distinct run_id) from citation) + 2 * (select count(*) from run))::float8 / (select count(*) from run) as n`,
);

// Phase 1: throughput.
const open = await listen(createApp(appDepsOf(agent, { log: (l) => console.error(l) })), { port: 0, host: '127.0.0.1' });
console.log(`warming up on ${open.url}…`);
await autocannon({ url: open.url, connections: 2, duration: 2, requests });
const before = await runsByStatus();
console.log(`throughput: ${CONNECTIONS} connections for ${DURATION_S} s…`);
const load = await autocannon({ url: open.url, connections: CONNECTIONS, duration: DURATION_S, timeout: 30, workers: 1, requests });
const after = await runsByStatus();
await open.close(5_000);
const completed = (after.completed ?? 0) - (before.completed ?? 0);
const failed = (after.failed ?? 0) - (before.failed ?? 0);
const runsPerS = load['2xx'] / load.duration;

// Phase 2: the limiter admits nothing over its limit.
const limiter = new InProcessLimiter({ windowMs: 60_000, maxRequests: LOW_LIMIT, dailyTokenCeiling: 1_000_000_000 });
const limited = await listen(createApp(appDepsOf(agent, { limiter, log: (l) => console.error(l) })), { port: 0, host: '127.0.0.1' });
console.log(`limiter: ${LOW_LIMIT} runs per minute, ${LIMIT_PHASE_REQUESTS} requests over ${CONNECTIONS} connections…`);
const capped = await autocannon({ url: limited.url, connections: CONNECTIONS, amount: LIMIT_PHASE_REQUESTS, timeout: 30, workers: 1, requests });
await limited.close(5_000);
const admitted = capped.statusCodeStats['200']?.count ?? 0;
const refused429 = capped.statusCodeStats['429']?.count ?? 0;
const otherStatuses = Object.entries(capped.statusCodeStats).filter(([s]) => s !== '200' && s !== '429');
const limiterHeld = admitted === LOW_LIMIT && refused429 === LIMIT_PHASE_REQUESTS - LOW_LIMIT && otherStatuses.length === 0 && capped.errors === 0;

await agent.close();
await store.close();

const metThroughput = runsPerS >= TARGET_RUNS_PER_S;
const metP99 = load.latency.p99 <= TARGET_P99_MS;
const cpu = os.cpus();
const loadAverage = os.loadavg()[0] ?? 0;
const date = new Date().toISOString();
const fmt = (n: number, d = 1) => n.toFixed(d);
const statusList = (stats: Record<string, { count: number }>) => Object.entries(stats).map(([s, v]) => `${s}: ${v.count}`).join(', ');

const report = `# Load test of the agent service

Generated by \`npm run load\` (scripts/load.ts) — do not edit by hand; run it again.

- Date: ${date}
- Machine: ${cpu.length} cores (\`os.cpus().length\`), ${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${fmt(os.totalmem() / 2 ** 30)} GiB RAM, ${os.platform()} ${os.release()}
- Busy-ness: 1-minute load average ${fmt(loadAverage, 2)} when the report was written (other work on the machine slows every figure)
- Runtime: Node ${process.version}; one process: the service and its in-memory PGlite on the main thread, autocannon in a worker thread
- Service: \`POST /v1/runs\` over a real socket on 127.0.0.1, the offline extractive model, the in-process limiter,
  every run fully recorded (run row, a span per node event, provider events, spend ledger, claims with citations)
- Questions cycled: ${QUESTIONS.length} (answered, refused, gated for approval, answered as partial, refused as another entity's property);
  the semantic cache answers repeats, as it would in service

## One run, sequentially (${SEQUENTIAL_RUNS} runs, no HTTP, no concurrency)

| measure | ms per run |
|---|---|
| the graph alone (\`Orchestrator.run\`, nothing stored) | ${fmt(graphMs, 2)} |
| the graph with the whole record written (\`RunService.start\`) | ${fmt(recordedMs, 2)} |
| so, the record | ${fmt(recordedMs - graphMs, 2)} (about ${fmt(writes?.n ?? 0, 0)} committed statements per run on the embedded PGlite) |

Run one after another, that is ${fmt(1000 / recordedMs, 0)} recorded runs/s, before HTTP and streaming.

## Throughput (${CONNECTIONS} connections, ${DURATION_S} s, limit never reached)

| measure | value | target | met |
|---|---|---|---|
| runs/s (2xx responses ÷ duration) | ${fmt(runsPerS)} | ≥ ${TARGET_RUNS_PER_S} | ${metThroughput ? 'yes' : 'no'} |
| latency p50 (whole streamed run) | ${load.latency.p50} ms | | |
| latency p99 | ${load.latency.p99} ms | ≤ ${TARGET_P99_MS} ms | ${metP99 ? 'yes' : 'no'} |
| latency p90 / max | ${load.latency.p90} / ${load.latency.max} ms | | |
| responses | ${statusList(load.statusCodeStats)}; ${load.errors} errors, ${load.timeouts} timeouts | | |
| runs recorded during the phase | ${completed} completed, ${failed} failed | | |

## Limiter (${LOW_LIMIT} runs per minute for the one client, ${LIMIT_PHASE_REQUESTS} requests over ${CONNECTIONS} connections)

| measure | value |
|---|---|
| requests | ${capped.requests.total} |
| admitted (200) | ${admitted} |
| refused (429) | ${refused429} |
| other statuses / errors | ${otherStatuses.length ? otherStatuses.map(([s, v]) => `${s}: ${v.count}`).join(', ') : 'none'} / ${capped.errors} |
| admitted exactly the limit (${LOW_LIMIT}), refused the rest with 429 | ${limiterHeld ? 'yes' : 'NO'} |

## Reading it

${metThroughput && metP99 ? 'Both targets are met on this machine.' : `Not met on this machine: ${[!metThroughput ? `${fmt(runsPerS)} runs/s against ${TARGET_RUNS_PER_S}` : '', !metP99 ? `p99 ${load.latency.p99} ms against ${TARGET_P99_MS} ms` : ''].filter(Boolean).join('; ')}.`}
A run is CPU-bound on one thread: the graph (retrieval, the gate, drafting, verification) and the
record (about ${fmt(writes?.n ?? 0, 0)} committed statements per run, a span per node event among them, each written as it
happens so a kill -9 loses nothing) share the main thread with the HTTP server: the embedded PGlite
executes its queries on that thread too. The sequential table shows the split — the record costs about
as much as the graph. Concurrency overlaps only the waits, and with ${CONNECTIONS} runs in flight each run
waits for the others' CPU, which is the latency. Fewer, batched span writes (a multi-row append in the
store) would cut the record's share; the graph's own cost bounds the rest. Scaling out is more
replicas, each its own process; the embedded PGlite is single-connection and single-process, so more
than one replica uses Postgres (\`DATABASE_URL\`) and Redis (\`REDIS_URL\`) for the shared limiter.
`;

writeFileSync(OUT, report);
console.log(report);
console.log(`written to ${OUT}`);
process.exitCode = limiterHeld ? 0 : 1;
});
