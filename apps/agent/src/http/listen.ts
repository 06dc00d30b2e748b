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
   * ends when its run does), then calls `whenGraceEnds` — the agent stops its
   * runs there, each stream ending with its `event: error` (S-258) — and cuts
   * what is still open `cutMs` after that. A connection is closed as soon as its
   * response ends, not a keep-alive timeout later.
   */
  close(graceMs?: number, options?: CloseOptions): Promise<void>;
}

export interface CloseOptions {
  /** Called once the grace is over with requests still open; the connections are cut only after it resolves. */
  readonly whenGraceEnds?: () => Promise<unknown>;
  /** How long what is open after `whenGraceEnds` has to end before it is cut (default 1000 ms). */
  readonly cutMs?: number;
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
    // Once closing, a keep-alive connection is closed when its response ends: server.close() closes only the
    // connections idle when it is called, and the rest kept the process 5 s (the keep-alive timeout) past their last byte.
    let closing = false;
    server.on('request', (_request, response) => {
      response.once('finish', () => {
        if (closing) setImmediate(() => server.closeIdleConnections());
      });
    });
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
        close: (graceMs = 10_000, closeOptions: CloseOptions = {}) =>
          new Promise<void>((done) => {
            let cut: NodeJS.Timeout | undefined;
            const graceEnds = async () => {
              await closeOptions.whenGraceEnds?.().catch(() => {});
              server.closeIdleConnections();
              cut = setTimeout(() => server.closeAllConnections(), closeOptions.cutMs ?? 1_000);
              cut.unref();
            };
            const grace = setTimeout(() => void graceEnds(), graceMs);
            grace.unref();
            closing = true;
            server.close(() => {
              clearTimeout(grace);
              clearTimeout(cut);
              done();
            });
            server.closeIdleConnections();
          }),
      });
    });
  });
}
