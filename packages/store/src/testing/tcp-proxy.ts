import { createServer, type Server, type Socket, connect } from 'node:net';

/** A TCP forwarder on 127.0.0.1 that a test can cut and restore, to give a real Postgres server an outage. */
export interface TcpProxy {
  /** The ephemeral port it listens on (kept across cut and restore). */
  readonly port: number;
  /** `url` with its host and port replaced by the proxy's. */
  urlThrough(url: string): string;
  /** The server goes away: live connections are reset and new ones refused, as when Postgres stops. */
  cut(): Promise<void>;
  /** The server is back on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Issue 12, defect 4: an outage of a shared Postgres server cannot be made by
 * stopping the server (other engineers and CI use it), so the agent under test
 * reaches it through this proxy and the test cuts the proxy instead. Bound to
 * 127.0.0.1 on port 0 (STYLE 12).
 */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;

  const listen = async (): Promise<void> => {
    const s = createServer((client) => {
      const upstream = connect(target.port, target.host);
      sockets.add(client).add(upstream);
      const drop = () => {
        client.destroy();
        upstream.destroy();
        sockets.delete(client);
        sockets.delete(upstream);
      };
      client.on('error', drop).on('close', drop);
      upstream.on('error', drop).on('close', drop);
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => resolve());
    });
    const address = s.address();
    if (typeof address === 'object' && address) port = address.port;
    server = s;
  };

  const stop = async (): Promise<void> => {
    const s = server;
    server = undefined;
    for (const socket of sockets) socket.resetAndDestroy();
    sockets.clear();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  };

  await listen();
  return {
    get port() {
      return port;
    },
    urlThrough(url: string) {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    cut: stop,
    async restore() {
      if (!server) await listen();
    },
    close: stop,
  };
}
