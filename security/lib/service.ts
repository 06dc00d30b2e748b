/**
 * The agent under attack: `sandscope serve` as a real process on a loopback
 * socket, port 0, over a temporary data directory — the same binary and start-up
 * an operator runs, so a pen test proves what a deployment does, not what a
 * test double does. Everything started here is stopped by its pid and every
 * temporary directory removed, even when a check throws (see `onExit`).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const REPO_ROOT = resolve(import.meta.dirname, '../..');
export const AGENT_BIN = join(REPO_ROOT, 'apps/agent/bin/sandscope.js');

/** A token and a salt made per run: nothing a pen test sends is a value anyone could have committed. */
export function freshSecret(prefix: string): string {
  return `${prefix}-${randomBytes(18).toString('hex')}`;
}

const cleanups: (() => Promise<void>)[] = [];

/** Registers a cleanup that runs (last registered first) when the check ends, however it ends. */
export function onExit(cleanup: () => Promise<void>): void {
  cleanups.push(cleanup);
}

export async function cleanUp(): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
}

// A pen test stopped by the runner's timeout (SIGTERM) or Ctrl-C still stops its children and removes its files.
// So does one whose reader went away (`… | head`): a write to the closed pipe must not kill it before its
// cleanup, which once left an agent running with no parent.
process.stdout.on('error', () => {});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void cleanUp().finally(() => process.exit(130));
  });
}

export async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `sandscope-security-${prefix}-`));
  onExit(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A loopback port nothing listens on: bound, read, released. */
export async function closedPort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => done(port));
    });
  });
}

/**
 * Set by the runner (security/run.ts) to a PGlite data directory it created
 * and migrated once: each agent then starts on a copy of it. A fresh PGlite
 * directory costs ~18 s of initdb and migrations on this 2-core machine, a copy
 * ~4 s, and eight agents start per run. The copy is still a private temporary
 * directory per agent; only the empty, migrated starting point is shared.
 */
export const PGLITE_TEMPLATE_VAR = 'SECURITY_PGLITE_TEMPLATE';

export interface RunningAgent {
  readonly url: string;
  readonly token: string;
  /** IP_SALT as started (unless the caller's env replaced it): a secret the agent must never send or store. */
  readonly salt: string;
  readonly pid: number;
  readonly dataDir: string;
  /** Everything the process printed (stdout and stderr): a pen test greps it for secrets too. */
  output(): string;
  /** SIGTERM (graceful: the lease is released, PGlite closed), SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

export interface StartOptions {
  /** Extra environment (limits, providers, REDIS_URL, DATABASE_URL, CORPUS_DIR). */
  readonly env?: Record<string, string>;
  /** How long start-up may take; the corpus, WordNet and PGlite's migrations take a while on a busy machine. */
  readonly timeoutMs?: number;
}

/**
 * Starts `sandscope serve --port 0` with a clean environment (nothing leaks in
 * from the machine: no DATABASE_URL, REDIS_URL or provider key unless given)
 * and resolves once it prints the address it listens on.
 */
export async function startAgent(options: StartOptions = {}): Promise<RunningAgent> {
  const token = freshSecret('pen-token');
  const salt = freshSecret('pen-salt');
  const dataDir = await tempDir('agent');
  const template = process.env[PGLITE_TEMPLATE_VAR];
  if (template && !options.env?.DATABASE_URL) await cp(template, join(dataDir, 'pglite'), { recursive: true });
  const started = performance.now();
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME ?? tmpdir(),
    AGENT_TOKEN: token,
    IP_SALT: salt,
    SANDSCOPE_DATA_DIR: dataDir,
    ...options.env,
  };
  const child: ChildProcess = spawn(process.execPath, [AGENT_BIN, 'serve', '--port', '0', '--host', '127.0.0.1'], {
    cwd: REPO_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const stop = async (graceMs = 10_000) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    process.kill(child.pid!, 'SIGTERM');
    const timer = setTimeout(() => {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, 'SIGKILL');
    }, graceMs);
    await exited;
    clearTimeout(timer);
  };
  onExit(() => stop(2_000));

  const url = await new Promise<string>((done, fail) => {
    const timer = setTimeout(
      () => fail(new Error(`sandscope serve did not listen within ${options.timeoutMs ?? 120_000} ms:\n${out}`)),
      options.timeoutMs ?? 120_000,
    );
    const look = () => {
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        done(m[1]!);
      }
    };
    child.stdout!.on('data', look);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      fail(new Error(`sandscope serve exited (${code ?? signal}) before listening:\n${out}`));
    });
  });
  console.log(
    `  agent pid ${child.pid} listening on ${url} after ${((performance.now() - started) / 1000).toFixed(1)} s${template ? ' (PGlite from the template)' : ''}`,
  );
  return { url, token, salt: options.env?.IP_SALT ?? salt, pid: child.pid!, dataDir, output: () => out, stop };
}
