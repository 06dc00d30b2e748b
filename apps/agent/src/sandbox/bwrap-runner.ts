import { spawn, spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { type SandboxRunner, type SandboxRunRequest, type SandboxRunResult, resolveWorkspacePath } from '@sandscope/engine/workspace';
import { JAIL_NODE } from './tool-declarations.ts';

export interface BwrapRunnerOptions {
  /** TOOLS_DIR: bound read-only at `/.tools`. */
  readonly toolsDir: string;
  /** Wall-clock limit of one run; the jail is killed after it. */
  readonly timeoutMs?: number;
  /** Characters of stdout (and of stderr) kept; the rest is cut and said to be (seed #20's lesson). */
  readonly maxOutputChars?: number;
  /** The bwrap binary (tests point it elsewhere to see the unavailable path). */
  readonly bwrap?: string;
}

export const DEFAULT_SANDBOX_TIMEOUT_MS = 10_000;

/**
 * The jail (seed #21), with bubblewrap: every namespace unshared (no network —
 * not even loopback to the host —, its own pids, ipc, uts), no capabilities, the host's /usr
 * read-only for the loader, libc and /bin/sh, TOOLS_DIR read-only at /.tools,
 * the agent's Node read-only at /.runtime/node for script tools, a private
 * /tmp for caches, and the investigation's files materialised into a fresh
 * temp directory bound as /root — the cwd and HOME, holding only the user's
 * files. Nothing else of the host (no /etc, no /home, no data dir) exists in it.
 * Writes to the workspace die with the run: the store stays the one source of the files.
 */
export class BwrapRunner implements SandboxRunner {
  readonly #toolsDir: string;
  readonly #timeoutMs: number;
  readonly #maxOutputChars: number;
  readonly #bwrap: string;

  constructor(options: BwrapRunnerOptions) {
    this.#toolsDir = options.toolsDir;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_SANDBOX_TIMEOUT_MS;
    this.#maxOutputChars = options.maxOutputChars ?? 200_000;
    this.#bwrap = options.bwrap ?? 'bwrap';
  }

  async run(request: SandboxRunRequest): Promise<SandboxRunResult> {
    const workspace = mkdtempSync(join(tmpdir(), 'sandscope-ws-'));
    try {
      for (const file of await request.files.list()) {
        // The store already refuses such paths; checked again because this is where a path becomes a place on disk.
        const path = resolveWorkspacePath(file.path);
        if (!path.ok) continue;
        const content = await request.files.read(path.path);
        if (content === null) continue;
        try {
          mkdirSync(dirname(join(workspace, path.path)), { recursive: true });
          writeFileSync(join(workspace, path.path), content);
        } catch (error) {
          // A name that is both a file and a folder ("a" and "a/b") cannot exist on disk; the later one is left out
          // and the tool says it is missing — one odd name must not fail the whole turn. Only those: a full disk or
          // no file descriptors left (ENOSPC, EMFILE) used to be swallowed too, and the tool ran on missing files.
          if (!NAME_CLASHES.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
        }
      }
      request.signal?.throwIfAborted();
      return await this.#spawn([...jailArgs(this.#toolsDir, workspace), '--', ...jailLimits(this.#timeoutMs), ...request.argv], request.signal);
    } finally {
      rmSync(workspace, { recursive: true, force: true });
    }
  }

  #spawn(argv: string[], signal: AbortSignal | undefined): Promise<SandboxRunResult> {
    return new Promise((resolve) => {
      const child = spawn(this.#bwrap, argv, { stdio: ['ignore', 'pipe', 'pipe'], env: {} });
      // S-269: the turn stopped (the agent shutting down) kills its tool now, not at the time limit after the store closed.
      const stop = () => child.kill('SIGKILL');
      signal?.addEventListener('abort', stop, { once: true });
      child.on('close', () => signal?.removeEventListener('abort', stop));
      let stdout = '';
      let stderr = '';
      let truncated = false;
      let timedOut = false;
      const take = (current: string, chunk: string): string => {
        if (current.length >= this.#maxOutputChars) {
          truncated = true;
          return current;
        }
        const next = current + chunk;
        if (next.length <= this.#maxOutputChars) return next;
        // Nothing more will be kept: stop the tool now rather than let it run (and spend CPU) until the time limit.
        truncated = true;
        child.kill('SIGKILL');
        return next.slice(0, this.#maxOutputChars);
      };
      // Decoded by the stream, not per chunk: a chunk boundary inside a multi-byte character turned it into U+FFFD.
      child.stdout.setEncoding('utf8');
      child.stderr.setEncoding('utf8');
      child.stdout.on('data', (c: string) => (stdout = take(stdout, c)));
      child.stderr.on('data', (c: string) => (stderr = take(stderr, c)));
      const timer = setTimeout(() => {
        timedOut = true;
        child.kill('SIGKILL');
      }, this.#timeoutMs);
      child.on('error', (error) => {
        clearTimeout(timer);
        // The errno only: error.message names bwrap's host path ("spawn /usr/bin/bwrap EACCES"), and this text reaches the agent.
        const code = (error as NodeJS.ErrnoException).code;
        resolve({ exitCode: null, stdout, stderr: `the jail could not start${code ? ` (${code})` : ''}`, timedOut, truncated });
      });
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ exitCode: code, stdout, stderr, timedOut, truncated });
      });
    });
  }
}

/** What writing a workspace file may fail with when its name clashes with another's on disk ("a" and "a/b"). */
const NAME_CLASHES = new Set(['ENOTDIR', 'EISDIR', 'EEXIST']);

/** Memory a jailed tool may allocate (RLIMIT_DATA: heap and private mappings). */
export const JAIL_MEMORY_BYTES = 512 * 1024 * 1024;
/** Processes and threads a jail may hold at once: a tool needs a handful (Node's threads count), a fork bomb many. */
export const JAIL_MAX_PROCESSES = 64;
/** util-linux's prlimit, from the host's /usr the jail binds read-only. */
export const PRLIMIT = '/usr/bin/prlimit';

/**
 * The resource limits a jailed tool runs under, as the argv that applies them
 * before exec'ing the tool. Before these only the wall clock bounded a run: a
 * filter that built a huge array could take the host's memory, a fork bomb its
 * process table. Applied inside the jail (after `--`), so the process count is
 * the jail's own user namespace's, not every process of the agent's user.
 * RLIMIT_DATA rather than RLIMIT_AS: Node (log_summary) reserves ~800 MiB of
 * address space before it runs a line, and dies under a 512 MiB RLIMIT_AS.
 */
export function jailLimits(timeoutMs: number): string[] {
  const cpuSeconds = Math.max(1, Math.ceil(timeoutMs / 1000));
  return [PRLIMIT, `--data=${JAIL_MEMORY_BYTES}`, `--cpu=${cpuSeconds}`, `--nproc=${JAIL_MAX_PROCESSES}`, '--'];
}

/** The bwrap arguments of the jail (exported so a reader can see the whole policy in one place, and the tests can print it). */
export function jailArgs(toolsDir: string, workspace: string): string[] {
  const args = systemArgs();
  args.push(
    '--ro-bind',
    toolsDir,
    '/.tools',
    '--ro-bind',
    process.execPath,
    JAIL_NODE,
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--tmpfs',
    '/tmp',
    '--bind',
    workspace,
    '/root',
    '--chdir',
    '/root',
    '--setenv',
    'HOME',
    '/root',
    '--setenv',
    'PATH',
    '/usr/bin:/bin',
    '--setenv',
    'TMPDIR',
    '/tmp',
    '--setenv',
    'XDG_CACHE_HOME',
    '/tmp/.cache',
    '--setenv',
    'LANG',
    'C.UTF-8',
  );
  return args;
}

/** Every namespace unshared, and the host's /usr read-only (the loader, libc, /bin/sh). */
function systemArgs(): string[] {
  // --cap-drop ALL: in its own user namespace the jailed process would otherwise hold every capability there, and
  // `mount -o remount,bind,rw /.tools` then succeeds and writes through to the shared TOOLS_DIR (seen, and tested).
  const args = ['--unshare-all', '--cap-drop', 'ALL', '--die-with-parent', '--new-session', '--clearenv', '--ro-bind', '/usr', '/usr'];
  // Merged-/usr hosts (Debian 12) have /bin, /lib… as links into /usr; older ones have real directories.
  for (const top of ['/bin', '/sbin', '/lib', '/lib64', '/lib32']) {
    if (!existsSync(top)) continue;
    const stat = lstatSync(top);
    if (stat.isSymbolicLink()) args.push('--symlink', readlinkSync(top), top);
    else if (stat.isDirectory()) args.push('--ro-bind', top, top);
  }
  return args;
}

/**
 * Whether a jail can be made here, by making one: bwrap may be installed and
 * still refused user namespaces (a locked-down container). The reason is what
 * start-up and `sandscope tools list` say when the sandboxed tools are not offered.
 */
export function probeJail(name = 'bwrap'): { ok: true; bwrap: string } | { ok: false; reason: string } {
  const bwrap = locateBwrap(name);
  if (bwrap === null) {
    return { ok: false, reason: 'bubblewrap (bwrap) is not installed; install it (Debian: apt-get install bubblewrap) to turn the sandboxed tools on.' };
  }
  // Every run goes through prlimit (jailLimits): without it every call would fail, so no tool is offered and start-up says why.
  if (!existsSync(PRLIMIT)) {
    return {
      ok: false,
      reason: `prlimit (util-linux) is not installed at ${PRLIMIT}; install it (Debian: apt-get install util-linux) to turn the sandboxed tools on.`,
    };
  }
  const probe = spawnSync(bwrap, [...systemArgs(), '--', ...jailLimits(5_000), '/bin/sh', '-c', 'exit 0'], { encoding: 'utf8', timeout: 5_000, env: {} });
  if (probe.error && (probe.error as NodeJS.ErrnoException).code === 'ENOENT') {
    return { ok: false, reason: 'bubblewrap (bwrap) is not installed; install it (Debian: apt-get install bubblewrap) to turn the sandboxed tools on.' };
  }
  if (probe.error || probe.status !== 0) {
    const why = (probe.stderr?.trim() || probe.error?.message || `exit ${probe.status}`).split('\n')[0];
    return { ok: false, reason: `bwrap cannot make a jail on this machine (${why}); user namespaces may be disabled.` };
  }
  return { ok: true, bwrap };
}

/**
 * bwrap's absolute path, looked up on the agent's PATH (or taken as given when
 * it names a path). Looked up here rather than by spawn: the jail is started
 * with an empty environment, and execvp would then search a default path the
 * operator never set — a bwrap they removed from PATH would still be used.
 */
export function locateBwrap(name = 'bwrap'): string | null {
  if (name.includes('/')) return existsSync(name) ? name : null;
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir !== '' && existsSync(join(dir, name))) return join(dir, name);
  }
  return null;
}
