import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, connect } from 'node:net';

/**
 * Test support: a throw-away `redis-server` on a free loopback port, owned by the
 * test that started it — so an outage test can kill *its* server and never the
 * shared one on 6379.
 */
export const REDIS_SERVER_BIN = process.env.SANDSCOPE_REDIS_SERVER_BIN ?? '/usr/bin/redis-server';

export function redisServerAvailable(): boolean {
  return existsSync(REDIS_SERVER_BIN);
}

export interface PrivateRedisServer {
  readonly port: number;
  readonly url: string;
  /** SIGKILL the server (a crash, not a shutdown) and wait for it to exit. */
  kill(): Promise<void>;
  /** Send a signal to this server's process only (e.g. SIGSTOP to make it hang). */
  signal(signal: NodeJS.Signals): void;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export async function startPrivateRedis(port?: number): Promise<PrivateRedisServer> {
  const chosen = port ?? (await freePort());
  const child: ChildProcess = spawn(REDIS_SERVER_BIN, ['--port', String(chosen), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await waitForPort(chosen, 5_000);
  return {
    port: chosen,
    url: `redis://127.0.0.1:${chosen}`,
    signal: (signal) => {
      child.kill(signal);
    },
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

async function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (up) return;
    if (Date.now() > deadline) throw new Error(`private redis-server did not listen on ${port} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
