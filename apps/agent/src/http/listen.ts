import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Env, Hono } from 'hono';
import { answerClientError } from './client-error.ts';

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
 * The only place a socket is opened: `@hono/node-server` serving the web-standard app. `log` hears a request Node's
 * HTTP parser refused before the app saw it (S-206, client-error.ts); default: not logged.
 */
export function listen<E extends Env>(app: Hono<E>, options: { port: number; host: string; log?: (line: string) => void }): Promise<Listening> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, port: options.port, hostname: options.host }, (info: AddressInfo) => {
      const host = info.family === 'IPv6' ? `[${info.address}]` : info.address;
      resolve({
        url: `http://${host}:${info.port}`,
        port: info.port,
        close: (graceMs = 10_000) =>
          new Promise<void>((done) => {
            const timer = setTimeout(() => (server as Server).closeAllConnections?.(), graceMs);
            timer.unref();
            (server as Server).closeIdleConnections?.();
            server.close(() => {
              clearTimeout(timer);
              done();
            });
          }),
      });
    }) as Server;
    server.on('clientError', answerClientError(options.log));
    server.once('error', reject);
  });
}
