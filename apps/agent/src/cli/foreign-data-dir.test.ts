import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { main } from './main.ts';
import { captureOutput } from './testing/capture-output.ts';

/**
 * SANDSCOPE_DATA_DIR/pglite holding files but no database (a file named `base`, or a folder of someone's own):
 * `investigation new` wrote database files among them and died "internal error: [object Object]. This is a bug"
 * (exit 1). The store refuses it before writing (pglite-data-dir.ts); here, what a person sees from the CLI and from
 * `serve`, which both open the store through startStore.
 */
const io = captureOutput();
const tmp = mkdtempSync(join(tmpdir(), 'sandscope-foreign-'));
let dataDir: string;

beforeEach(() => {
  dataDir = mkdtempSync(join(tmp, 'data-'));
  mkdirSync(join(dataDir, 'pglite'));
  writeFileSync(join(dataDir, 'pglite', 'base'), 'not a database\n');
  vi.stubEnv('SANDSCOPE_DATA_DIR', dataDir);
  vi.stubEnv('DATABASE_URL', undefined);
});
afterEach(() => vi.unstubAllEnvs());
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

async function refusedLeavingItAsItWas(argv: string[]): Promise<void> {
  io.err = '';
  expect(await main(argv), argv.join(' ')).toBe(2);
  const lines = io.err.trim().split('\n');
  const said = `sandscope: the embedded database folder ${join(dataDir, 'pglite')} holds files but no database (base; no PG_VERSION)`;
  expect(lines.at(-1)!.startsWith(said), io.err).toBe(true);
  expect(lines.at(-1)).toMatch(/Nothing in it was changed\. Set SANDSCOPE_DATA_DIR to another folder/);
  expect(io.err).not.toMatch(/\n\s+at |internal error|This is a bug|object Object/);
  expect(readdirSync(dataDir)).toEqual(['pglite']);
  expect(readdirSync(join(dataDir, 'pglite'))).toEqual(['base']);
  expect(readFileSync(join(dataDir, 'pglite', 'base'), 'utf8')).toBe('not a database\n');
}

describe('a pglite folder of files that are not a database', () => {
  it('investigation new: one line saying what to do, exit 2, nothing written', async () => {
    await refusedLeavingItAsItWas(['investigation', 'new', 'checkout 502s']);
    expect(io.err.trim().split('\n')).toHaveLength(1);
  });

  it('serve: the same line, exit 2, nothing written', async () => {
    vi.stubEnv('AGENT_TOKEN', 'a1'.repeat(32));
    // serve prints its start-up notes (IP_SALT, tools) first; the refusal is its last line.
    await refusedLeavingItAsItWas(['serve', '--port', '0', '--host', '127.0.0.1']);
  }, 120_000);
});
