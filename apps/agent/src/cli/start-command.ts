import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import { loadConfig } from '../config.ts';
import { UserError } from '../user-error.ts';
import { parseCommandOptions } from './args.ts';
import { ensurePortFree } from './port-check.ts';
import { websiteBuildIsCurrent } from '../website-build.ts';

const REPO_ROOT = resolve(import.meta.dirname, '../../../..');
const SANDSCOPE_BIN = resolve(import.meta.dirname, '../../bin/sandscope.js');
const WEB_DIR = join(REPO_ROOT, 'apps/web');
const WEB_SERVER = join(WEB_DIR, 'server.mts');
/** The agent's only client is the website's server on this machine: it never listens beyond loopback. */
const AGENT_HOST = '127.0.0.1';
/** PGlite's first start (migrations, corpus) takes seconds; a server that is not up after this is stuck. */
const AGENT_READY_MS = 120_000;
const WEB_READY_MS = 60_000;
const STOP_GRACE_MS = 15_000;
const PARENT_POLL_MS = 500;

/** The flags of `start`, each the spelling of one variable of the agent's config schema (config.ts). */
const FLAG_VARIABLES = { port: 'PORT', 'web-port': 'WEB_PORT', 'web-host': 'WEB_HOST' } as const;

type Env = NodeJS.ProcessEnv;

const say = (line: string) => process.stdout.write(`sandscope: ${line}\n`);

/**
 * The environment a child inherits: this process's, minus any AGENT_TOKEN — the
 * token is generated for this start and handed only to the two processes that
 * use it. `next build` in particular never sees it, so it cannot be inlined into
 * a client bundle (T-12).
 */
function inherited(): Env {
  const { AGENT_TOKEN: _token, AGENT_URL: _url, ...rest } = process.env;
  return rest;
}

/** The agent's address and the website's, from the flags and the environment, checked by the one config schema. */
function placement(argv: string[]): { agentPort: number; webPort: number; webHost: string } {
  const { values } = parseCommandOptions('start', argv, {
    port: { type: 'string' },
    'web-port': { type: 'string' },
    'web-host': { type: 'string' },
  });
  const env: Env = inherited();
  const flags: Record<string, string> = {};
  for (const [flag, variable] of Object.entries(FLAG_VARIABLES)) {
    const value = values[flag as keyof typeof FLAG_VARIABLES];
    if (value === undefined) continue;
    env[variable] = value;
    flags[variable] = `--${flag}`;
  }
  const parsed = loadConfig(env, { supervise: true, flags });
  if (!parsed.ok) throw new UserError(parsed.message.split('\n').join(' | '));
  const { config } = parsed;
  return { agentPort: config.port, webPort: config.website.port, webHost: config.website.host };
}

/**
 * `npx sandscope start [--port 7860] [--web-port 3000] [--web-host 127.0.0.1]`
 * (what `npm start` runs): the agent on 127.0.0.1 and the website, as child
 * processes, with a bearer token generated for this start and never printed.
 * Ports are flags (or PORT / WEB_PORT) so a second checkout can run beside the
 * first. Builds the website first when it has no build. Forwards SIGINT/SIGTERM
 * to both and waits for them; `npm start`'s script `exec`s this process, so the
 * signal npm forwards lands here and npm exits only after both have stopped. A
 * launcher that disappears counts as SIGTERM (see `parentGone`). Without a
 * website (absent, or its build fails) the agent still runs, and this says so.
 */
export async function startCommand(argv: string[]): Promise<number> {
  const { agentPort, webPort, webHost } = placement(argv);
  const token = randomBytes(32).toString('hex');
  const agentUrl = `http://${AGENT_HOST}:${agentPort}`;
  const webProbeUrl = `http://${probeHost(webHost)}:${webPort}/`;
  const children = new Set<ChildProcess>();

  let stopping: NodeJS.Signals | undefined;
  const stopAll = async (signal: NodeJS.Signals) => {
    const alive = [...children].filter((c) => c.exitCode === null && c.signalCode === null);
    await Promise.all(alive.map((c) => stopChild(c, signal)));
  };
  // Whoever reads our output may be gone by the time we stop (npm after a SIGTERM, a closed pipe): a failed
  // write must not crash this process between its children, which would orphan them.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
  const signalled = new Promise<NodeJS.Signals>((resolveSignal) => {
    const stop = (signal: NodeJS.Signals) => {
      if (stopping) return;
      stopping = signal;
      resolveSignal(signal);
    };
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      // `on`, not `once`: a second Ctrl-C while the children drain must not kill this process and orphan them.
      process.on(signal, () => stop(signal));
    }
    void parentGone().then(() => {
      if (stopping) return;
      say('the process that started this one has gone');
      stop('SIGTERM');
    });
  });

  // A server already on either port would answer the readiness checks in place of ours (with another token).
  await ensurePortFree({ what: 'agent', port: agentPort, host: AGENT_HOST, flag: '--port' });
  await ensurePortFree({ what: 'website', port: webPort, host: webHost, flag: '--web-port', hostFlag: '--web-host' });
  say(`starting the agent on ${agentUrl}`);
  const agent = track(
    children,
    spawn(process.execPath, [SANDSCOPE_BIN, 'serve', '--port', String(agentPort), '--host', AGENT_HOST], {
      cwd: process.cwd(),
      env: { ...inherited(), AGENT_TOKEN: token },
      stdio: ['ignore', 'inherit', 'inherit'],
    }),
  );
  const agentExit = exited(agent);

  const ready = await Promise.race([
    waitForHttp(`${agentUrl}/healthz`, AGENT_READY_MS).then(() => 'ready' as const),
    agentExit.then(() => 'exited' as const),
    signalled.then(() => 'signalled' as const),
  ]);
  if (ready !== 'ready') {
    await stopAll(stopping ?? 'SIGTERM');
    if (ready === 'signalled') return 0;
    throw new UserError(`the agent did not start (exit ${describeExit(agent)}); its message is above. Fix it and run \`npm start\` again.`);
  }

  let web: ChildProcess | undefined;
  const why = await prepareWebsite(signalled);
  if (why === 'signalled') {
    await stopAll(stopping ?? 'SIGTERM');
    return 0;
  }
  if (why !== null) {
    say(`${why} The agent is running alone at ${agentUrl} (press Ctrl-C to stop).`);
  } else {
    // The website's own server (apps/web/server.mts), not `next start`: it settles forwarding headers from
    // the socket and TRUSTED_PROXIES before Next sees a request (issue 12, defect 2).
    web = track(
      children,
      spawn(process.execPath, ['--import', import.meta.resolve('tsx'), WEB_SERVER, '--port', String(webPort), '--host', webHost], {
        cwd: WEB_DIR,
        // The website's server is the only client of the agent: it alone gets where it lives and its token.
        env: { ...inherited(), AGENT_URL: agentUrl, AGENT_TOKEN: token, NEXT_TELEMETRY_DISABLED: '1' },
        stdio: ['ignore', 'inherit', 'inherit'],
      }),
    );
    const webExit = exited(web);
    const webReady = await Promise.race([
      waitForHttp(webProbeUrl, WEB_READY_MS).then(() => 'ready' as const),
      webExit.then(() => 'exited' as const),
      signalled.then(() => 'signalled' as const),
    ]).catch(() => 'timeout' as const);
    if (webReady === 'signalled') {
      await stopAll(stopping ?? 'SIGTERM');
      return 0;
    }
    if (webReady === 'ready') {
      say(`Sandscope is running: open ${browserUrl(webHost, webPort)}`);
      if (!isLoopback(webHost)) say(`the website listens on ${webHost}: anyone who can reach port ${webPort} asks questions with this start's agent token.`);
    } else
      say(
        `the website did not start (${webReady === 'exited' ? `exit ${describeExit(web)}` : `no answer on port ${webPort} within ${WEB_READY_MS / 1000} s`}); the agent is still running at ${agentUrl}.`,
      );
    void webExit.then(() => {
      // Only while the agent lives: stopped because the agent died, the website's exit said the agent "is still running".
      const agentAlive = agent.exitCode === null && agent.signalCode === null;
      if (!stopping && agentAlive) say(`the website stopped (exit ${describeExit(web!)}); the agent is still running at ${agentUrl}.`);
    });
  }

  const outcome = await Promise.race([signalled.then(() => 'signalled' as const), agentExit.then(() => 'agent-exited' as const)]);
  if (outcome === 'signalled') {
    say(`${stopping}: stopping the website and the agent`);
    await stopAll(stopping ?? 'SIGTERM');
    return 0;
  }
  say(`the agent stopped (exit ${describeExit(agent)}); stopping the website`);
  await stopAll('SIGTERM');
  return agent.exitCode && agent.exitCode !== 0 ? agent.exitCode : 1;
}

/**
 * Resolves when the process that started this one has exited. A launcher that
 * runs us under `sh -c` (npx does; `npm start` did before its script said
 * `exec`) forwards SIGTERM to the shell, which dies of it without passing it on:
 * we are orphaned, still holding both servers and their ports. So losing the
 * parent is a stop, as SIGTERM is. Polled with signal 0, which works wherever
 * Node does; `process.ppid` is read once at start-up and does not change.
 */
function parentGone(pollMs = PARENT_POLL_MS): Promise<void> {
  const parent = process.ppid;
  // Started by init, or as a container's first process: there is no launcher to outlive.
  if (parent <= 1) return new Promise(() => {});
  return new Promise((resolveGone) => {
    const timer = setInterval(() => {
      try {
        process.kill(parent, 0);
      } catch (error) {
        // EPERM means it exists under another user: only "no such process" is gone.
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH') return;
        clearInterval(timer);
        resolveGone();
      }
    }, pollMs);
    timer.unref();
  });
}

/** null when the website is built and can start; otherwise why it cannot. Builds it first if needed. */
async function prepareWebsite(signalled: Promise<NodeJS.Signals>): Promise<string | null | 'signalled'> {
  if (!existsSync(join(WEB_DIR, 'package.json')) || !existsSync(WEB_SERVER)) return 'The website (apps/web) is not present.';
  const next = nextBin();
  if (!next) return 'The website cannot start: Next.js is not installed (run `npm install` at the repository root).';
  if (websiteBuildIsCurrent(WEB_DIR)) return null;
  say(
    existsSync(join(WEB_DIR, '.next', 'BUILD_ID'))
      ? 'the website changed since its production build: running `next build` in apps/web again (a minute or two)'
      : 'the website has no production build yet: running `next build` in apps/web (a minute or two, once)',
  );
  const build = spawn(process.execPath, [next, 'build'], {
    cwd: WEB_DIR,
    env: { ...inherited(), NEXT_TELEMETRY_DISABLED: '1' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const result = await Promise.race([exited(build).then(() => 'done' as const), signalled.then(() => 'signalled' as const)]);
  if (result === 'signalled') {
    await stopChild(build, 'SIGTERM');
    return 'signalled';
  }
  return build.exitCode === 0 ? null : `The website failed to build (exit ${describeExit(build)}; its output is above).`;
}

function nextBin(): string | null {
  try {
    return createRequire(join(WEB_DIR, 'package.json')).resolve('next/dist/bin/next');
  } catch {
    return null;
  }
}

function track(children: Set<ChildProcess>, child: ChildProcess): ChildProcess {
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolveExit) => {
    if (child.exitCode !== null || child.signalCode !== null) resolveExit();
    else child.once('exit', () => resolveExit());
  });
}

function describeExit(child: ChildProcess): string {
  return child.signalCode ?? String(child.exitCode ?? 'unknown');
}

/** Sends the signal, then SIGKILL if the child has not exited within the grace period. */
async function stopChild(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const done = exited(child);
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
  await done;
  clearTimeout(timer);
}

/** Where to reach the website from this machine: a wildcard address is reached on loopback. */
function probeHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return isIP(host) === 6 ? `[${host}]` : host;
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** The address to print: `localhost` for a loopback or wildcard website (what a browser on this machine opens). */
function browserUrl(host: string, port: number): string {
  const reachable = isLoopback(host) || host === '0.0.0.0' || host === '::' ? 'localhost' : probeHost(host);
  return `http://${reachable}:${port}`;
}

/** Resolves once `url` answers any HTTP status; rejects after `timeoutMs`. */
async function waitForHttp(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      await fetch(url, { signal: AbortSignal.timeout(2_000) });
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  throw new Error(`no answer from ${url} within ${timeoutMs} ms`);
}
