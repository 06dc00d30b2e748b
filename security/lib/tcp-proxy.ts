/**
 * A loopback TCP proxy that can take a server away: `down()` cuts every open
 * connection and stops listening (new connections are refused, as they are
 * when a database host goes away), `up()` listens again on the same port. The
 * database outage pen test puts it between the agent and Postgres, so the
 * outage is a real one for the agent's driver — no test double in the agent.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  readonly port: number;
  down(): Promise<void>;
  up(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const make = (): Server =>
    createServer((client) => {
      const upstream = connect(target.port, target.host);
      sockets.add(client);
      sockets.add(upstream);
      const drop = () => {
        client.destroy();
        upstream.destroy();
        sockets.delete(client);
        sockets.delete(upstream);
      };
      client.on('error', drop).on('close', drop);
      upstream.on('error', drop).on('close', drop);
      client.pipe(upstream);
      upstream.pipe(client);
    });
  const listen = (server: Server, port: number) =>
    new Promise<number>((done, fail) => {
      server.once('error', fail);
      server.listen(port, '127.0.0.1', () => {
        const address = server.address();
        done(typeof address === 'object' && address ? address.port : port);
      });
    });
  let server: Server | null = make();
  const port = await listen(server, 0);
  const stop = async () => {
    if (!server) return;
    const closing = server;
    server = null;
    for (const socket of sockets) socket.destroy();
    sockets.clear();
    await new Promise<void>((done) => closing.close(() => done()));
  };
  return {
    port,
    down: stop,
    async up() {
      if (server) return;
      server = make();
      await listen(server, port);
    },
    close: stop,
  };
}
