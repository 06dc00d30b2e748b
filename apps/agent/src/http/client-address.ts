import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';

/** How this deployment learns the socket's peer address (node-server puts the request in `c.env.incoming`). */
export type SocketAddress = (c: Context) => string | undefined;

export const nodeSocketAddress: SocketAddress = (c) => (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket.remoteAddress;

/**
 * The address a client is limited by (T-1): the first `X-Forwarded-For` hop —
 * the website's BFF sets it to the browser's address, and only an authenticated
 * caller (it runs after the bearer check) can set it at all — else the socket's
 * peer. Used only as the input of the salted digest (T-9); never stored.
 */
export function clientAddress(c: Context, socketAddress: SocketAddress): string {
  const first = c.req.header('x-forwarded-for')?.split(',')[0]?.trim();
  if (first) return first;
  return socketAddress(c) ?? 'unknown';
}
