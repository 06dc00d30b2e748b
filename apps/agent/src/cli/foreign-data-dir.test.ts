import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { folderSnapshot } from '@sandscope/store/testing';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { main } from './main.ts';
import { captureOutput } from './testing/capture-output.ts';

/**
 * SANDSCOPE_DATA_DIR/pglite holding files but no database (a file named `base`, or a folder of someone's own):
 * `investigation new` wrote database files among them and died "internal error: [object Object]. This is a bug"
 * (exit 1). The store refuses it before writing (pglite-data-dir.ts); here, what a person sees from the CLI and from
 * `serve`, which both open the store through startStore, and from `tools build`, which opens none but writes TOOLS_DIR
 * (S-215), and that nothing is made beside it (TOOLS_DIR's default, SANDSCOPE_DATA_DIR/tools, included). A pglite
 * folder holding only the operating system's files is a new database's start (S-205).
 */
const io = captureOutput();
const tmp = mkdtempSync(join(tmpdir(), 'sandscope-foreign-'));
const BIN = resolve(import.meta.dirname, '../../bin/sandscope.js');
const TOKEN = 'a1'.repeat(32);
let dataDir: string;

/** A SANDSCOPE_DATA_DIR of its own whose pglite/ folder holds these files. */
function dataDirHolding(files: Record<string, string>): void {
  dataDir = mkdtempSync(join(tmp, 'data-'));
  mkdirSync(join(dataDir, 'pglite'));
  for (const [name, bytes] of Object.entries(files)) writeFileSync(join(dataDir, 'pglite', name), bytes);
  vi.stubEnv('SANDSCOPE_DATA_DIR', dataDir);
}

beforeEach(() => vi.stubEnv('DATABASE_URL', undefined));
afterEach(() => vi.unstubAllEnvs());
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Refused in one last line naming `shown` as the files found, exit 2, and SANDSCOPE_DATA_DIR byte for byte as it was. */
async function refusedLeavingItAsItWas(argv: string[], shown: string): Promise<void> {
  const before = folderSnapshot(dataDir);
  io.err = '';
  expect(await main(argv), argv.join(' ')).toBe(2);
  const lines = io.err.trim().split('\n');
  const said = `sandscope: the embedded database folder ${join(dataDir, 'pglite')} holds files but no database (${shown}; no PG_VERSION)`;
  expect(lines.at(-1)!.startsWith(said), io.err).toBe(true);
  expect(lines.at(-1)).toMatch(/Nothing in it was changed\. Set SANDSCOPE_DATA_DIR to another folder/);
  expect(io.err).not.toMatch(/\n\s+at |internal error|This is a bug|object Object/);
  // Nothing beside it either: no tools/ (TOOLS_DIR's default), no pglite.owner claim left behind.
  expect(folderSnapshot(dataDir)).toEqual(before);
}

describe('a pglite folder of files that are not a database', () => {
  beforeEach(() => dataDirHolding({ base: 'not a database\n' }));

  it('investigation new: one line saying what to do, exit 2, nothing written', async () => {
    await refusedLeavingItAsItWas(['investigation', 'new', 'checkout 502s'], 'base');
    expect(io.err.trim().split('\n')).toHaveLength(1);
  });

  it('serve: the same line, exit 2, nothing written', async () => {
    vi.stubEnv('AGENT_TOKEN', TOKEN);
    // serve prints its start-up notes (IP_SALT, tools) first; the refusal is its last line.
    await refusedLeavingItAsItWas(['serve', '--port', '0', '--host', '127.0.0.1'], 'base');
  }, 120_000);

  // S-215: it built jq and log_summary into SANDSCOPE_DATA_DIR/tools beside the folder, said "built", and exited 0.
  it('tools build: the same line, exit 2, no tools built beside it', async () => {
    await refusedLeavingItAsItWas(['tools', 'build'], 'base');
    expect(io.err.trim().split('\n')).toHaveLength(1);
    expect(io.out).toBe('');
  });
});

describe("someone's file with the operating system's beside it", () => {
  // The message named .DS_Store and ._notes.txt first, as though they were the person's files to move (S-205).
  beforeEach(() => dataDirHolding({ '.DS_Store': '\u0000\u0000\u0000\u0001Bud1', '._notes.txt': '\u0000\u0005\u0016\u0007', 'notes.txt': 'mine\n' }));

  it('investigation new: refused naming their file alone, nothing written', async () => {
    await refusedLeavingItAsItWas(['investigation', 'new', 'checkout 502s'], 'notes.txt');
  });

  it('serve: refused naming their file alone, nothing written', async () => {
    vi.stubEnv('AGENT_TOKEN', TOKEN);
    await refusedLeavingItAsItWas(['serve', '--port', '0', '--host', '127.0.0.1'], 'notes.txt');
  }, 120_000);

  it('tools build: refused naming their file alone, nothing written', async () => {
    await refusedLeavingItAsItWas(['tools', 'build'], 'notes.txt');
  });
});

describe('a pglite folder holding only a .DS_Store (the Finder opened it)', () => {
  // It was refused as someone's files, and told to move the .DS_Store (S-205). Now the database is made beside it.
  const DS_STORE = '\u0000\u0000\u0000\u0001Bud1\u0000\u0000\u0010\u0000';
  beforeEach(() => dataDirHolding({ '.DS_Store': DS_STORE }));

  /** The database is made there, the .DS_Store is as it was, and nothing else is made in SANDSCOPE_DATA_DIR (no tools/). */
  function madeTheDatabaseBesideIt(before: Record<string, string>): void {
    const pglite = join(dataDir, 'pglite');
    expect(existsSync(join(pglite, 'PG_VERSION'))).toBe(true);
    expect(folderSnapshot(pglite)[join(pglite, '.DS_Store')]).toBe(before[join(pglite, '.DS_Store')]);
    expect(readdirSync(dataDir)).toEqual(['pglite']);
  }

  it('investigation new: the investigation is made, exit 0', async () => {
    const before = folderSnapshot(dataDir);
    expect(await main(['investigation', 'new', 'checkout 502s']), io.err).toBe(0);
    expect(io.err).toBe('');
    madeTheDatabaseBesideIt(before);
  }, 120_000);

  it('serve: it starts and listens, and stops on SIGTERM, exit 0', async () => {
    const before = folderSnapshot(dataDir);
    // A real process: serve runs until a signal, which is not sent to the test's own.
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--host', '127.0.0.1'], {
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME ?? tmpdir(),
        IP_SALT: 'foreign-data-dir-salt-0123',
        AGENT_TOKEN: TOKEN,
        SANDSCOPE_DATA_DIR: dataDir,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    try {
      const url = await new Promise<string | undefined>((r) => {
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const listening = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
          if (listening) r(listening[1]);
        });
        child.on('exit', () => r(undefined));
      });
      expect(url, out).toBeDefined();
      // Answered once its signal handlers are in place (they are set in the same turn as the line above is printed).
      expect((await fetch(`${url}/healthz`)).status, out).toBe(200);
      child.kill('SIGTERM');
      expect(await exited, out).toBe(0);
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    madeTheDatabaseBesideIt(before);
  }, 120_000);
});
