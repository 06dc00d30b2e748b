import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { main } from './main.ts';
import { captureOutput } from './testing/capture-output.ts';

/**
 * A refused `sandscope investigation` leaves nothing behind. `investigation new` with an empty, blank or over-long
 * title made the embedded database (.sandscope/ of the folder it ran in) and only then refused the title, so a
 * person's typo left a .sandscope/ in whatever folder they stood in. Each command runs in a fresh folder, with the
 * default data directory, as a person's terminal would.
 */
const io = captureOutput();
const tmp = mkdtempSync(join(tmpdir(), 'sandscope-refusal-'));
const cwd = process.cwd();
let here: string;

beforeEach(() => {
  here = join(tmp, randomUUID());
  mkdirSync(here);
  process.chdir(here);
  vi.stubEnv('SANDSCOPE_DATA_DIR', undefined);
  vi.stubEnv('DATABASE_URL', undefined);
});
afterEach(() => {
  process.chdir(cwd);
  vi.unstubAllEnvs();
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** One line, prefixed, no stack trace, exit code 2: a person's mistake, not a bug. */
async function refused(argv: string[]): Promise<string> {
  io.err = '';
  expect(await main(argv), argv.join(' ')).toBe(2);
  expect(io.err.trim().split('\n'), io.err).toHaveLength(1);
  expect(io.err).toMatch(/^sandscope: /);
  expect(io.err).not.toMatch(/\n\s+at |internal error|This is a bug/);
  return io.err;
}

describe('a refused `investigation new` creates no .sandscope/', () => {
  it.each([
    ['an empty title', [''], /The title is empty; give the investigation a name, e\.g\. "[^"]+"\..*`npx sandscope help`/],
    ['a blank title', ['   '], /The title is empty; give the investigation a name/],
    ['a blank title after --', ['--', ' '], /The title is empty; give the investigation a name/],
    ['a title over 200 characters', ['x'.repeat(201)], /The title is 201 characters; the limit is 200\..*`npx sandscope help`/],
    ['no title', [], /investigation new needs a TITLE\. Usage: npx sandscope investigation new TITLE/],
    ['an unknown option', ['checkout', '--bogus'], /Unknown option '--bogus'.*`npx sandscope investigation --help`/],
  ])('%s: says what to do, and leaves the folder as it was', async (_, args, says) => {
    const message = await refused(['investigation', 'new', ...args]);
    expect(message).toMatch(says);
    expect(existsSync(join(here, '.sandscope'))).toBe(false);
    expect(readdirSync(here)).toEqual([]);
  });

  it('a title it accepts makes the database here (so the refusals above were looked for in the right place)', async () => {
    io.out = '';
    expect(await main(['investigation', 'new', ` ${'x'.repeat(200)} `])).toBe(0);
    expect(io.out.trim()).toMatch(/^[0-9a-f-]{36}$/);
    expect(existsSync(join(here, '.sandscope', 'pglite', 'PG_VERSION'))).toBe(true);
  });
});

describe('only `investigation new` makes a database (S-192)', () => {
  it('every other subcommand, refused or answered in a folder with none, leaves the folder empty', async () => {
    const log = join(tmp, `${randomUUID()}.log`);
    writeFileSync(log, 'one line\n');
    const id = randomUUID();
    for (const args of [['show', id], ['rename', id, 'a name'], ['rename', id, ''], ['rm', id], ['add', id, log], ['ask', id, 'why?'], ['frobnicate'], []]) {
      const message = await refused(['investigation', ...args]);
      expect(message).toMatch(/sandscope investigation|Usage: npx sandscope investigation/);
      expect(readdirSync(here), args.join(' ')).toEqual([]);
    }
    io.out = '';
    expect(await main(['investigation', 'list'])).toBe(0);
    expect(io.out).toMatch(/^No investigations: there is no Sandscope database in .*Start one with `npx sandscope investigation new TITLE`/);
    expect(readdirSync(here)).toEqual([]);
  });
});
