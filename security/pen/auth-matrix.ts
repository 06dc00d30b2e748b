/**
 * Pen test: the auth matrix (T-3). Every route in the router's own table,
 * against a real `sandscope serve` on loopback, with no token, a wrong token,
 * a near miss (the right token with its last character changed: what a timing
 * attack converges on), a malformed header, the session cookie alone, and the
 * right token.
 *
 * - every /v1 route answers 401 `unauthorized` (with WWW-Authenticate) to all
 *   but the right token, a valid session cookie without the token included
 *   (T-17: the cookie is not authentication); the public routes (health,
 *   metrics) answer 200 to all;
 * - the right token is never 401 and never 5xx;
 * - the refusals take the same time: medians of the no-token, wrong-token and
 *   near-miss refusals are compared loosely (the machine is shared, so a
 *   difference must be both over 1.5 ms and over half the smallest median to
 *   count — a database lookup or a hash on one path only would be both).
 */
import { send, type RawResponse, errorCodeOf, median } from '../lib/http.ts';
import { runCheck } from '../lib/report.ts';
import { concretePath, PUBLIC_ROUTES, type Route, routeName, routeTable } from '../lib/routes.ts';
import { startAgent } from '../lib/service.ts';

const TIMING_ROUNDS = Number(process.env.SECURITY_AUTH_ROUNDS ?? 6);

type Mode = 'none' | 'wrong' | 'near-miss' | 'malformed' | 'cookie-only' | 'right';

/** A session cookie the agent issued to the right token (T-17: it scopes approvals, it is not authentication). */
let sessionCookie = '';

function authHeader(mode: Mode, token: string): Record<string, string> {
  switch (mode) {
    case 'none':
      return {};
    case 'cookie-only':
      return { cookie: sessionCookie };
    case 'wrong':
      return { authorization: `Bearer ${'x'.repeat(token.length)}` };
    case 'near-miss':
      return { authorization: `Bearer ${token.slice(0, -1)}${token.endsWith('0') ? '1' : '0'}` };
    case 'malformed':
      return { authorization: `Basic ${Buffer.from(`user:${token}`).toString('base64')}` };
    case 'right':
      return { authorization: `Bearer ${token}` };
  }
}

function requestFor(route: Route, mode: Mode, token: string) {
  const path = concretePath(route.path, (name) => (name === 'path' ? 'notes.md' : 'pen-unknown-id'));
  const writes = route.method === 'POST' || route.method === 'PUT' || route.method === 'PATCH';
  return {
    method: route.method,
    path,
    headers: { ...authHeader(mode, token), ...(writes ? { 'content-type': 'application/json' } : {}) },
    // A body that is invalid for every route: the right token reaches validation (400/404) and spends nothing.
    ...(writes ? { body: '{"pen":"auth-matrix"}' } : {}),
  };
}

await runCheck('auth matrix (T-3)', async (t) => {
  const routes = routeTable();
  const agent = await startAgent({ env: { RATE_LIMIT_MAX: '100000' } });
  t.line(`${routes.length} routes from the router's table (${routes.filter((r) => PUBLIC_ROUTES.has(routeName(r))).length} public by design)`);
  for (const name of PUBLIC_ROUTES)
    t.expect(
      routes.some((r) => routeName(r) === name),
      `public route ${name} is no longer in the table: update PUBLIC_ROUTES`,
    );
  // T-4/T-5: the corpus is loaded at start-up and nothing at runtime may change it.
  const corpusWrites = routes.filter((r) => r.path.startsWith('/v1/corpus') && r.method !== 'GET');
  t.expect(corpusWrites.length === 0, `the router's table has a route that writes the corpus: ${corpusWrites.map(routeName).join(', ')}`);

  const timings: Record<'none' | 'wrong' | 'near-miss', number[]> = { none: [], wrong: [], 'near-miss': [] };
  const check = (route: Route, mode: Mode, res: RawResponse) => {
    t.count('requests');
    t.count(`status ${mode}=${res.status}`);
    const name = routeName(route);
    if (PUBLIC_ROUTES.has(name)) {
      t.expect(res.status === 200, `${name} (public) with ${mode} token answered ${res.status}`);
      return;
    }
    if (mode === 'right') {
      t.expect(res.status !== 401 && res.status < 500, `${name} with the right token answered ${res.status}: ${res.text.slice(0, 160)}`);
      return;
    }
    t.expect(
      res.status === 401 && errorCodeOf(res) === 'unauthorized',
      `${name} with ${mode} token answered ${res.status} ${res.text.slice(0, 160)} (expected 401 unauthorized)`,
    );
    t.expect(res.status !== 401 || String(res.headers['www-authenticate'] ?? '').startsWith('Bearer'), `${name} 401 without WWW-Authenticate: Bearer`);
  };

  const issued = await send(agent.url, { method: 'GET', path: '/v1/providers', headers: authHeader('right', agent.token) });
  sessionCookie = String(issued.headers['set-cookie'] ?? '').split(';')[0] ?? '';
  t.expect(
    sessionCookie.startsWith('sandscope_session='),
    `the right token was issued no session cookie (${issued.headers['set-cookie']}): the cookie-only case would test nothing`,
  );

  // Warm-up, uncounted: the first requests pay for JIT and connection set-up, not for the code under test.
  for (let i = 0; i < 20; i += 1) await send(agent.url, requestFor(routes[2]!, 'none', agent.token));

  // The matrix, every route × every mode; then more rounds of the three refusals, interleaved in a shuffled
  // order each round so a slow moment on the shared machine lands on all three alike.
  for (const route of routes)
    for (const mode of ['none', 'wrong', 'near-miss', 'malformed', 'cookie-only', 'right'] as const)
      check(route, mode, await send(agent.url, requestFor(route, mode, agent.token)));
  const protectedRoutes = routes.filter((r) => !PUBLIC_ROUTES.has(routeName(r)));
  for (let round = 0; round < TIMING_ROUNDS; round += 1) {
    for (const route of protectedRoutes) {
      const modes = (['none', 'wrong', 'near-miss'] as const).slice().sort(() => Math.random() - 0.5);
      for (const mode of modes) {
        const res = await send(agent.url, requestFor(route, mode, agent.token));
        check(route, mode, res);
        timings[mode].push(res.ms);
      }
    }
  }

  const medians = Object.fromEntries(Object.entries(timings).map(([mode, ms]) => [mode, median(ms)])) as Record<keyof typeof timings, number>;
  t.line(`requests ${t.counts.get('requests')}; statuses ${t.summary('status ')}`);
  t.line(
    `401 timing over ${timings.none.length} samples each: median no token ${medians.none.toFixed(3)} ms, wrong token ${medians.wrong.toFixed(3)} ms, ` +
      `near miss ${medians['near-miss'].toFixed(3)} ms`,
  );
  const values = Object.values(medians);
  const spread = Math.max(...values) - Math.min(...values);
  const allowed = Math.max(1.5, 0.5 * Math.min(...values));
  t.line(`largest difference between medians ${spread.toFixed(3)} ms (allowed ${allowed.toFixed(3)} ms)`);
  t.expect(spread <= allowed, `401 medians differ by ${spread.toFixed(3)} ms (> ${allowed.toFixed(3)} ms): a refusal's time depends on the token`);
  await agent.stop();
});
