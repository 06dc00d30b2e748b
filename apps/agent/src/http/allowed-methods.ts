import type { Env, Hono } from 'hono';
import { METHOD_NAME_ALL } from 'hono/router';

/** The order methods are named in an `Allow` header: reads first, then writes. */
const ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * The methods `app` serves at `path`, for a 405's `Allow` header, read from the app's own router: the routes it
 * matches for each method it has routes for. S-212: a method a path does not serve (DELETE /v1/runs, PUT /healthz)
 * was answered 404 "There is no route", as if the path did not exist; read from the router, a route added later is
 * in the header without anyone listing it, and a path no route matches (an unknown path) gets none, so stays a 404.
 * Middleware (`app.use`, method ALL) matches every method and serves none, so it is not counted. HEAD is served
 * wherever GET is: Hono answers it with the GET route, without the body.
 */
export function methodsServing<E extends Env>(app: Hono<E>, path: string): string[] {
  const served = new Set<string>();
  for (const method of new Set(app.routes.map((route) => route.method))) {
    if (method === METHOD_NAME_ALL) continue;
    const [matched] = app.router.match(method, path);
    if (matched.some(([[, route]]) => route.method === method)) served.add(method);
  }
  if (served.has('GET')) served.add('HEAD');
  return [...served].sort((a, b) => rank(a) - rank(b));
}

function rank(method: string): number {
  const at = ORDER.indexOf(method);
  return at < 0 ? ORDER.length : at;
}
