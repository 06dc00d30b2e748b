import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import type { Env, Hono } from 'hono';
import { answerClientError, refusalsBeforeTheApp, unreadableRequest } from './client-error.ts';

export interface Listening {
  readonly url: string;
  readonly port: number;
  /**
   * Stops accepting, waits up to `graceMs` for open requests (a streaming run
   * ends when its run does), then cuts what is left. A run cut here is marked
   * interrupted by the next start-up.
   */
  close(graceMs?: number): Promise<void>;
}

/**
 * The only place a socket is opened: `@hono/node-server`'s listener serving the web-standard app on a node:http
 * server. What Node or node-server would answer before the app sees a request is answered in the API's error shape
 * instead (client-error.ts): a request the parser refuses (S-206), and one with no Host, an `Expect` other than
 * 100-continue, or a target that is not a path (S-212) — so the server is made here, not by node-server's `serve`,
 * which passes neither its `errorHandler` nor these listeners. `log` hears each such refusal (default: not logged), and
 * `counted` its status (the agent's /metrics).
 */
export function listen<E extends Env>(
  app: Hono<E>,
  options: { port: number; host: string; log?: (line: string) => void; counted?: (status: number) => void },
): Promise<Listening> {
  return new Promise((resolve, reject) => {
    // Answered before the app, so its middleware never counts them: `counted` does, or /metrics showed none of them.
    const heard = (line: string, status: number) => {
      options.log?.(line);
      options.counted?.(status);
    };
    const requests = getRequestListener(app.fetch, { hostname: options.host, errorHandler: unreadableRequest(heard) });
    const before = refusalsBeforeTheApp(requests, heard);
    // Host is still required of HTTP/1.1: by `before.request`, which says so in the API's shape, where Node's own check
    // answered a bare 400.
    const server = createServer({ requireHostHeader: false }, before.request);
    server.on('checkContinue', before.checkContinue);
    server.on('checkExpectation', before.checkExpectation);
    server.on('clientError', answerClientError(heard));
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      const info = server.address() as AddressInfo;
      const host = info.family === 'IPv6' ? `[${info.address}]` : info.address;
      resolve({
        url: `http://${host}:${info.port}`,
        port: info.port,
        close: (graceMs = 10_000) =>
          new Promise<void>((done) => {
            const timer = setTimeout(() => server.closeAllConnections(), graceMs);
            timer.unref();
            server.closeIdleConnections();
            server.close(() => {
              clearTimeout(timer);
              done();
            });
          }),
      });
    });
  });
}
