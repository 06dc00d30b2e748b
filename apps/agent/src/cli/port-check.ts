import { createServer } from 'node:net';
import { UserError } from '../user-error.ts';

/** Which server a port is for, and the flag that moves it — what a person needs to act on a clash. */
export interface PortUse {
  readonly what: string;
  readonly port: number;
  readonly host: string;
  readonly flag: string;
  readonly hostFlag?: string;
}

/**
 * Refuses, with a message naming the port and the flag that changes it, when
 * `port` on `host` cannot be bound. Binding is the test, not an HTTP probe: a
 * listener that does not speak HTTP, or one on 0.0.0.0 when we want 127.0.0.1,
 * blocks a start just the same, and an HTTP probe misses both. The port is
 * released at once; the child that wants it binds it a moment later.
 */
export async function ensurePortFree(use: PortUse): Promise<void> {
  const code = await bindError(use.port, use.host);
  if (code === null) return;
  const where = `port ${use.port} on ${use.host}`;
  if (code === 'EADDRINUSE') {
    throw new UserError(
      `${where} (for the ${use.what}) is already in use — another \`npm start\`, perhaps from another checkout? ` +
        `Stop it, or pass ${use.flag} with a free port (npm start -- ${use.flag} ${suggestion(use.port)}).`,
    );
  }
  if (code === 'EACCES') {
    throw new UserError(`${where} (for the ${use.what}) needs privileges this user does not have. Pass ${use.flag} with a port above 1023.`);
  }
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    const flag = use.hostFlag ?? use.flag;
    throw new UserError(
      `cannot listen on ${use.host} (for the ${use.what}): no such address on this machine. Pass ${flag} 127.0.0.1 (this machine only) or 0.0.0.0 (every interface).`,
    );
  }
  throw new UserError(`cannot listen on ${where} (for the ${use.what}): ${code}. Pass ${use.flag} with another port.`);
}

/** A port near the one asked for, as an example in the message (not a promise that it is free). */
function suggestion(port: number): number {
  return port < 65_535 ? port + 1 : port - 1;
}

function bindError(port: number, host: string): Promise<string | null> {
  return new Promise((resolveBind) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => resolveBind(error.code ?? 'an unknown error'));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolveBind(null)));
  });
}
