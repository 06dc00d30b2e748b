/*
 * The website's production server: Next.js behind a plain node:http server of
 * our own, for one reason — the socket. `next start` hands a route handler no
 * socket address, and fills X-Forwarded-For from the socket only when a request
 * did not bring its own, so a browser could pick the address the agent limits it
 * by (issue 12, defect 2). Here every request's forwarding headers are settled
 * before Next sees them:
 *
 * - the peer is not a TRUSTED_PROXIES proxy: every forwarding header is dropped
 *   (Next refills them from this connection) and X-Forwarded-For is the peer;
 * - the peer is a trusted proxy: X-Forwarded-For becomes the one client address
 *   walked back through trusted hops (lib/client-address.ts); the proxy's other
 *   forwarding headers stand.
 *
 *   node --import tsx server.mts [--port 3000] [--host 127.0.0.1]
 *
 * Run by `npm start` at the repository root (the supervisor passes both flags)
 * and by `npm start` in apps/web.
 */
import { createServer, type Server } from 'node:http';
import { parseArgs } from 'node:util';
import { settleForwarding } from './lib/client-address';
import { currentWebConfig } from './lib/web-config';

/** Open requests get this long after SIGINT/SIGTERM; a streamed run still going then is cut (the agent keeps it). */
const SHUTDOWN_GRACE_MS = 10_000;

const say = (line: string) => process.stdout.write(`sandscope-web: ${line}\n`);

/** Bad input: one line saying what to do, exit 2 — never a stack trace. */
function refuse(message: string): never {
  process.stderr.write(`sandscope-web: ${message}\n`);
  process.exit(2);
}

async function main(): Promise<void> {
  let values: { port?: string; host?: string };
  try {
    ({ values } = parseArgs({ options: { port: { type: 'string' }, host: { type: 'string' } }, strict: true }));
  } catch (error) {
    refuse(`${(error as Error).message.replace(/\. To specify.*$/s, '')}. Usage: node --import tsx server.mts [--port 3000] [--host 127.0.0.1]`);
  }
  const parsed = currentWebConfig({ WEB_PORT: values.port, WEB_HOST: values.host });
  if (!parsed.ok) refuse(parsed.problems.map((p) => p.message).join(' | '));
  const { listen, trustedProxies } = parsed.config;

  // Next picks React's production build when it is loaded, so the mode is set before the import.
  (process.env as Record<string, string>).NODE_ENV = 'production'; // Next's types mark it read-only; `next start` sets it the same way
  const { default: next } = await import('next');
  const app = next({ dev: false, dir: import.meta.dirname, hostname: listen.host, port: listen.port });
  await app.prepare();
  const handle = app.getRequestHandler();

  const server: Server = createServer((req, res) => {
    settleForwarding(req.headers, req.socket.remoteAddress, trustedProxies);
    void handle(req, res);
  });
  await new Promise<void>((resolveListen) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE')
        refuse(
          `port ${listen.port} on ${listen.host} is already in use. Stop what is using it, or pass --port with a free port (under \`npm start\` at the root: --web-port).`,
        );
      if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND')
        refuse(`cannot listen on ${listen.host}: no such address on this machine. Pass --host 127.0.0.1 or 0.0.0.0.`);
      if (error.code === 'EACCES') refuse(`port ${listen.port} needs privileges this user does not have. Pass --port with a port above 1023.`);
      refuse(`cannot listen on ${listen.host}:${listen.port} (${error.code ?? error.message}).`);
    });
    server.listen(listen.port, listen.host, resolveListen);
  });
  const proxies =
    trustedProxies.size === 0
      ? 'no proxy is trusted: clients are told apart by their socket address'
      : `forwarding headers believed from ${trustedProxies.size} TRUSTED_PROXIES entr${trustedProxies.size === 1 ? 'y' : 'ies'}`;
  say(`listening on http://${listen.host.includes(':') ? `[${listen.host}]` : listen.host}:${listen.port} (${proxies})`);

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    // A Ctrl-C reaches us from the terminal and again from the supervisor: the first one stops us.
    if (stopping) return;
    stopping = true;
    say(`${signal}: stopping`);
    const timer = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
    timer.unref();
    server.closeIdleConnections();
    server.close(() => {
      clearTimeout(timer);
      void app.close().finally(() => process.exit(0));
    });
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

await main();
