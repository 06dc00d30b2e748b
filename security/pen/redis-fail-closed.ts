/**
 * Pen test: the limiter fails closed (T-1, D-013). `sandscope serve` with
 * REDIS_URL pointing at a loopback port where nothing listens: every route
 * that spends (it passes the limiter) must answer exactly 503
 * `limiter_unavailable` — not 200, not a 429 that could be mistaken for a
 * working limiter, not 500 — for clients the limiter has never seen; the routes
 * that spend nothing keep answering; no run is started. Then a redis-server is
 * started on that port: runs are admitted again without a restart. Then it is
 * killed: refused again.
 */
import { API_ERRORS } from 'sandscope';
import { redisServerAvailable, REDIS_SERVER_BIN, startPrivateRedis } from 'sandscope/testing';
import { errorCodeOf, median, send } from '../lib/http.ts';
import { CannotRun, runCheck } from '../lib/report.ts';
import { concretePath, routeName, routeTable } from '../lib/routes.ts';
import { closedPort, onExit, startAgent } from '../lib/service.ts';

/** The routes that pass the limiter (app.ts: `limited`). Each must still be in the table, or this list is stale. */
const SPENDING_ROUTES = new Set(['POST /v1/runs', 'POST /v1/runs/:id/approve', 'POST /v1/investigations/:id/turns']);
const ROUNDS = Number(process.env.SECURITY_REDIS_ROUNDS ?? 30);
const QUESTION = JSON.stringify({ question: 'What is the connection pool ceiling for orders-db?' });

await runCheck('fail closed: Redis unreachable', async (t) => {
  if (!redisServerAvailable()) throw new CannotRun(`no redis-server at ${REDIS_SERVER_BIN} to bring Redis back with (set SANDSCOPE_REDIS_SERVER_BIN)`);
  const routes = routeTable();
  for (const name of SPENDING_ROUTES)
    t.expect(
      routes.some((r) => routeName(r) === name),
      `${name} is not in the router's table: update SPENDING_ROUTES`,
    );
  const port = await closedPort();
  const agent = await startAgent({ env: { REDIS_URL: `redis://127.0.0.1:${port}`, RATE_LIMIT_MAX: '100000' } });
  const json = { authorization: `Bearer ${agent.token}`, 'content-type': 'application/json' };
  t.line(`REDIS_URL=redis://127.0.0.1:${port} (nothing listens there)`);

  const bodyFor = (path: string) => (path.endsWith('/turns') ? JSON.stringify({ message: 'what failed?' }) : QUESTION);
  const refusalMs: number[] = [];
  const expectRefused = async (label: string, path: string, client: string) => {
    const res = await send(agent.url, { method: 'POST', path, headers: { ...json, 'x-forwarded-for': client }, body: bodyFor(path) });
    t.count('requests');
    t.count(`refused-phase status ${res.status}`);
    refusalMs.push(res.ms);
    const code = errorCodeOf(res);
    const exact =
      res.status === 503 &&
      code === 'limiter_unavailable' &&
      (JSON.parse(res.text) as { error: { message: string } }).error.message === API_ERRORS.limiter_unavailable.remedy;
    t.expect(exact, `${label}: ${res.status} ${res.text.slice(0, 160)} (expected exactly 503 limiter_unavailable)`);
  };

  // Every route once: the spending ones refused, the others unaffected by the limiter.
  for (const route of routes) {
    const path = concretePath(route.path, (p) => (p === 'path' ? 'notes.md' : 'pen-unknown-id'));
    const name = routeName(route);
    if (SPENDING_ROUTES.has(name)) {
      await expectRefused(name, path, '198.51.100.1');
      continue;
    }
    const writes = route.method !== 'GET' && route.method !== 'DELETE';
    const res = await send(agent.url, { method: route.method, path, headers: json, ...(writes ? { body: '{}' } : {}) });
    t.count('requests');
    t.count(`other-routes status ${res.status}`);
    t.expect(res.status < 500, `${name} (spends nothing) answered ${res.status} while Redis is down: ${res.text.slice(0, 160)}`);
  }
  // Many clients the limiter has never seen, on every spending route: admitting-on-error would answer 200 here.
  for (let i = 0; i < ROUNDS; i += 1) {
    for (const name of SPENDING_ROUTES) {
      const path = concretePath(name.split(' ')[1]!, () => 'pen-unknown-id');
      await expectRefused(`${name} client #${i}`, path, `198.51.100.${(i % 250) + 2}`);
    }
  }
  const runs = JSON.parse((await send(agent.url, { method: 'GET', path: '/v1/runs', headers: json })).text) as { total?: number; runs?: unknown[] };
  const started = runs.total ?? runs.runs?.length ?? -1;
  t.expect(started === 0, `${started} run(s) were started while the limiter was unreachable`);
  t.line(
    `refused phase: ${refusalMs.length} requests to the spending routes, median ${median(refusalMs).toFixed(1)} ms, slowest ${Math.max(...refusalMs).toFixed(1)} ms; runs started ${started}`,
  );
  t.expect(median(refusalMs) < 1_000, `refusals take ${median(refusalMs).toFixed(0)} ms (median): the limiter queues instead of failing fast`);

  // Redis comes back on the same port: admitted again, no restart.
  const redis = await startPrivateRedis(port);
  onExit(() => redis.kill());
  const back = performance.now();
  let recovered = false;
  while (performance.now() - back < 20_000) {
    const res = await send(agent.url, { method: 'POST', path: '/v1/runs', headers: { ...json, 'x-forwarded-for': '198.51.100.254' }, body: QUESTION });
    t.count('requests');
    t.count(`recovery status ${res.status}`);
    if (res.status === 200) {
      recovered = true;
      break;
    }
    t.expect(res.status === 503 && errorCodeOf(res) === 'limiter_unavailable', `while Redis came back: ${res.status} ${res.text.slice(0, 160)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  t.expect(recovered, 'runs were not admitted within 20 s of Redis coming back');
  t.line(`Redis back: ${recovered ? `admitted again after ${((performance.now() - back) / 1000).toFixed(1)} s` : 'NOT admitted within 20 s'}`);

  // And killed again: refused again.
  await redis.kill();
  await expectRefused('after Redis was killed again', '/v1/runs', '198.51.100.253');
  t.line(
    `requests ${t.counts.get('requests')}; statuses ${t.summary('refused-phase status ')} (spending, Redis down) | ${t.summary('other-routes status ')} (other routes) | ${t.summary('recovery status ')} (recovery)`,
  );
  await agent.stop();
});
