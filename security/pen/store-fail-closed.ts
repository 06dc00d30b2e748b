/**
 * Pen test: the database fails closed (issue 12, defect 4). `sandscope serve`
 * on Postgres through a loopback TCP proxy (security/lib/tcp-proxy.ts), over a
 * database created for this run and dropped after it. PGlite lives inside the
 * agent's process and cannot lose its server, so the outage is staged where a
 * real one happens: between the agent and its database.
 *
 * While the database is unreachable:
 * - `POST /v1/runs` is refused before the stream opens with exactly 503
 *   `store_unavailable` (a distinct code, as for the limiter) — not 200 then an
 *   `internal` error event, which is what defect 4 found;
 * - no route answers 500 `internal`.
 * Once it is back: runs are admitted again, and no run is left `running`.
 *
 * Needs Postgres: SANDSCOPE_TEST_DATABASE_URL (as CI sets it), else
 * postgres://postgres@127.0.0.1:5432/postgres. Without one it cannot run — exit
 * 2, reported as such, never as a pass.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { API_ERRORS } from 'sandscope';
import { errorCodeOf, safeSse, send } from '../lib/http.ts';
import { CannotRun, runCheck } from '../lib/report.ts';
import { concretePath, routeName, routeTable } from '../lib/routes.ts';
import { onExit, startAgent } from '../lib/service.ts';
import { startTcpProxy } from '../lib/tcp-proxy.ts';

const QUESTION = JSON.stringify({ question: 'What is the connection pool ceiling for orders-db?' });
const OUTAGE_RUNS = Number(process.env.SECURITY_STORE_ROUNDS ?? 20);
/** Whether this branch has defect 4's code at all; until it does, the check says so by name instead of failing mutely. */
const HAS_STORE_UNAVAILABLE = 'store_unavailable' in API_ERRORS;
const TODO = HAS_STORE_UNAVAILABLE ? '' : '[TODO defect 4] ';

await runCheck('fail closed: database unreachable', async (t) => {
  const admin = new URL(process.env.SANDSCOPE_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  const name = `sandscope_security_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin.href, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
  } catch (error) {
    throw new CannotRun(`no Postgres at ${admin.host} (${(error as Error).message}); set SANDSCOPE_TEST_DATABASE_URL`);
  }
  await client.query(`create database ${name}`);
  onExit(async () => {
    await client.query(`drop database if exists ${name} with (force)`).catch(() => {});
    await client.end();
  });
  const proxy = await startTcpProxy({ host: admin.hostname, port: Number(admin.port || 5432) });
  onExit(() => proxy.close());
  const url = new URL(admin.href);
  url.port = String(proxy.port);
  url.pathname = `/${name}`;
  const agent = await startAgent({ env: { DATABASE_URL: url.href, RATE_LIMIT_MAX: '100000' } });
  const json = { authorization: `Bearer ${agent.token}`, 'content-type': 'application/json' };
  t.line(`database ${name} on ${admin.hostname}:${admin.port || 5432}, through a proxy on 127.0.0.1:${proxy.port}`);
  if (TODO)
    t.line('TODO(issue 12 defect 4): this branch has no store_unavailable code yet, so the checks below fail; they are expected to pass once that fix lands');

  const ask = () => send(agent.url, { method: 'POST', path: '/v1/runs', headers: json, body: QUESTION, timeoutMs: 60_000 });
  const before = await ask();
  t.expect(
    before.status === 200 && safeSse(before.text).at(-1)?.event === 'result',
    `with the database up, a run answered ${before.status} ${before.text.slice(-200)}`,
  );

  await proxy.down();
  t.line('database cut (connections reset, port refusing)');
  for (let i = 0; i < OUTAGE_RUNS; i += 1) {
    const res = await ask();
    t.count('requests');
    const last = safeSse(res.text).at(-1);
    const shape =
      res.status === 200
        ? `200 then ${last?.event}${last?.event === 'error' ? ` ${(last.data as { error?: { code?: string } }).error?.code}` : ''}`
        : `${res.status} ${errorCodeOf(res)}`;
    t.count(`outage POST /v1/runs ${shape}`);
    if (!(res.status === 503 && errorCodeOf(res) === 'store_unavailable') && !t.findings.some((f) => f.includes('POST /v1/runs during the outage'))) {
      t.finding(`${TODO}POST /v1/runs during the outage answered ${shape} (expected 503 store_unavailable before the stream opens)`);
    }
  }
  for (const route of routeTable()) {
    const path = concretePath(route.path, (p) => (p === 'path' ? 'notes.md' : '00000000-0000-0000-0000-000000000000'));
    const writes = route.method !== 'GET' && route.method !== 'DELETE';
    const res = await send(agent.url, {
      method: route.method,
      path,
      headers: json,
      ...(writes ? { body: route.path.endsWith('/turns') ? '{"message":"x"}' : '{"title":"x"}' } : {}),
      timeoutMs: 60_000,
    });
    t.count('requests');
    t.count(`outage other ${res.status}${res.status >= 400 ? ` ${errorCodeOf(res)}` : ''}`);
    const fine = res.status < 500 || (res.status === 503 && errorCodeOf(res) === 'store_unavailable');
    t.expect(
      fine,
      `${TODO}${routeName(route)} during the outage answered ${res.status} ${errorCodeOf(res) ?? res.text.slice(0, 80)} (expected 503 store_unavailable or an answer that needs no database)`,
    );
  }

  await proxy.up();
  const back = performance.now();
  let recovered = false;
  while (performance.now() - back < 30_000) {
    const res = await ask();
    t.count('requests');
    if (res.status === 200 && safeSse(res.text).at(-1)?.event === 'result') {
      recovered = true;
      break;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  t.expect(recovered, 'runs were not admitted again within 30 s of the database coming back');
  t.line(`database back: ${recovered ? `a run answered after ${((performance.now() - back) / 1000).toFixed(1)} s` : 'NO run answered within 30 s'}`);
  // Give recovery (marking runs cut by the outage interrupted) a moment, then read what was left behind.
  await new Promise((r) => setTimeout(r, 2_000));
  const list = JSON.parse((await send(agent.url, { method: 'GET', path: '/v1/runs?pageSize=100', headers: json })).text) as {
    runs: { id: string; status: string }[];
  };
  const statuses = new Map<string, number>();
  for (const run of list.runs) statuses.set(run.status, (statuses.get(run.status) ?? 0) + 1);
  t.line(`runs recorded: ${[...statuses].map(([s, n]) => `${s}×${n}`).join(' ') || 'none'}`);
  const running = list.runs.filter((r) => r.status === 'running');
  t.expect(
    running.length === 0,
    `${TODO}${running.length} run(s) still \`running\` after the database came back (expected none: refused, or marked interrupted)`,
  );
  t.line(
    `requests ${t.counts.get('requests')}; during the outage: ${t.summary('outage POST /v1/runs ')} (POST /v1/runs) | ${t.summary('outage other ')} (every route)`,
  );
  await agent.stop();
});
