/**
 * The routes under test, read from the router's own table: `createApp`'s
 * `app.routes`, built with inert dependencies (nothing is started; the
 * handlers never run here). A route added to the app is attacked the next time
 * the pen tests run, without anyone remembering to list it.
 */
import { type AppDeps, createApp } from 'sandscope';

export interface Route {
  readonly method: string;
  /** Hono's pattern: `/v1/runs/:id`, `/v1/investigations/:id/files/:path{.+}`. */
  readonly path: string;
}

/** Routes a load balancer and a scraper read without a token (docs/API.md); every other route must refuse one. */
export const PUBLIC_ROUTES: ReadonlySet<string> = new Set(['GET /healthz', 'GET /metrics']);

/** Never called: createApp only wires middleware and handlers when it is built. */
const inert = new Proxy(
  {},
  {
    get: () => () => {
      throw new Error('security/lib/routes.ts: an inert dependency was called');
    },
  },
);

export function routeTable(): Route[] {
  const deps = {
    token: 'route-table-only',
    ipSalt: 'route-table-only',
    maxBodyBytes: 1,
    maxQuestionChars: 1,
    runs: inert,
    reader: inert,
    feedback: inert,
    // Given, so the investigation routes are mounted exactly as `serve` mounts them.
    investigations: inert,
    limiter: inert,
    metrics: inert,
    corpus: inert,
    estate: null,
    graph: inert,
    providers: [],
    health: inert,
    latestEvaluation: inert,
  } as unknown as AppDeps;
  const seen = new Map<string, Route>();
  for (const r of createApp(deps).routes) {
    // `app.use` middleware is registered as method ALL; a route with middleware appears once per handler.
    if (r.method === 'ALL') continue;
    const path = r.path.length > 1 ? r.path.replace(/\/$/, '') : r.path;
    seen.set(`${r.method} ${path}`, { method: r.method, path });
  }
  return [...seen.values()];
}

/** A concrete path for a pattern: each `:name` (and `:name{regex}`) replaced by `fill(name)`. */
export function concretePath(pattern: string, fill: (param: string) => string): string {
  return pattern.replace(/:(\w+)(\{[^}]*\})?/g, (_, name: string) => fill(name));
}

export const routeName = (r: Route) => `${r.method} ${r.path}`;
