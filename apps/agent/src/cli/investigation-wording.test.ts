import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { remedyOf } from '@sandscope/api/errors';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ServiceErrorCode } from '../service/service-error.ts';
import { main } from './main.ts';
import { captureOutput } from './testing/capture-output.ts';

/**
 * What `sandscope investigation` tells a person at a terminal when it refuses: the CLI's own advice, never the
 * HTTP API's (S-191), and advice that works from where the person is, with the database named when they are
 * in the wrong folder (S-192: the embedded database is `.sandscope/` of the current folder).
 */
const io = captureOutput();
const tmp = mkdtempSync(join(tmpdir(), 'sandscope-wording-'));
const cwd = process.cwd();

/** What only an HTTP client can act on: a route, the API's request shapes, a header or the session cookie. */
const HTTP_ONLY = /\b(GET|POST|PUT|PATCH|DELETE) \/|docs\/API\.md|Authorization|Retry-After|cookie/;

beforeAll(() => vi.stubEnv('DATABASE_URL', ''));
afterEach(() => process.chdir(cwd));
afterAll(() => {
  vi.unstubAllEnvs();
  rmSync(tmp, { recursive: true, force: true });
});

function folder(...parts: string[]): string {
  const dir = join(tmp, ...parts);
  mkdirSync(dir, { recursive: true });
  return dir;
}

async function newInvestigation(title: string): Promise<string> {
  io.out = '';
  expect(await main(['investigation', 'new', title])).toBe(0);
  return io.out.trim();
}

async function paths(id: string): Promise<string[]> {
  io.out = '';
  expect(await main(['investigation', 'show', id, '--json'])).toBe(0);
  return JSON.parse(io.out).files.map((f: { path: string }) => f.path);
}

/** Does what the refusal's backticked command says, as a shell would: `cd DIR && VAR=value sandscope ARGS…`. */
async function follow(advice: string): Promise<number> {
  const command = /`([^`]*sandscope investigation add [^`]*)`/.exec(advice)?.[1];
  expect(command, advice).toBeDefined();
  let words = command!.split(' ');
  if (words[0] === 'cd') {
    process.chdir(words[1]!);
    expect(words[2]).toBe('&&');
    words = words.slice(3);
  }
  while (/^[A-Z_]+=/.test(words[0]!)) {
    const [name, ...value] = words.shift()!.split('=');
    vi.stubEnv(name!, value.join('='));
  }
  expect(words[0]).toBe('sandscope');
  return main(words.slice(1));
}

/** Two hosts' logs of one name, somewhere. */
function twoHosts(under: string): [string, string] {
  const files = ['web-1', 'web-2'].map((host) => {
    writeFileSync(join(folder(under, host), 'nginx.log'), `${host} 502\n`);
    return join(tmp, under, host, 'nginx.log');
  });
  return files as [string, string];
}

describe('sandscope investigation says what to do at a terminal (S-191)', () => {
  it('a refused title, an unknown id and a binary file end with CLI advice, not an HTTP route', async () => {
    vi.stubEnv('SANDSCOPE_DATA_DIR', join(tmp, 'd4-data'));
    io.err = '';
    expect(await main(['investigation', 'new', ''])).toBe(2);
    expect(io.err).toMatch(/give the investigation a name/);
    expect(io.err).toContain('sandscope help');
    expect(io.err).not.toMatch(HTTP_ONLY);

    const id = await newInvestigation('checkout 502s');
    const log = join(folder('d4'), 'f.log');
    writeFileSync(log, 'one line\n');
    io.err = '';
    expect(await main(['investigation', 'add', 'nope', log])).toBe(2);
    expect(io.err).toMatch(/There is no investigation nope\b/);
    expect(io.err).toContain('sandscope investigation list');
    expect(io.err).not.toMatch(HTTP_ONLY);
    // This database holds investigations: the id is wrong, not the folder.
    expect(io.err).not.toMatch(/holds no investigations/);

    const binary = join(tmp, 'd4', 'heap.bin');
    writeFileSync(binary, new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0, 0, 1]));
    io.err = '';
    expect(await main(['investigation', 'add', id, binary])).toBe(2);
    expect(io.err).toMatch(/heap\.bin was not added: it is binary/);
    expect(io.err).not.toMatch(HTTP_ONLY);
  });

  it('has a CLI remedy naming no HTTP route for every code the investigation service refuses with', () => {
    // `satisfies`: a code added to ServiceErrorCode is a compile error here until its CLI wording is checked.
    const codes = {
      not_found: true,
      not_awaiting_approval: true,
      forbidden_session: true,
      invalid_request: true,
      question_too_long: true,
      payload_too_large: true,
      run_interrupted: true,
      interrupted: true,
    } satisfies Record<ServiceErrorCode, true>;
    for (const code of Object.keys(codes) as ServiceErrorCode[]) expect(remedyOf(code, 'cli'), code).not.toMatch(HTTP_ONLY);
  });
});

describe('two files of one name: the advice works from where it is given (S-192)', () => {
  it('from a folder beside the logs, the command it gives adds both to this folder’s investigation', async () => {
    const home = folder('d2-home');
    const [one, two] = twoHosts('d2-incident');
    process.chdir(home);
    vi.stubEnv('SANDSCOPE_DATA_DIR', undefined);
    const id = await newInvestigation('two hosts');
    io.err = '';
    expect(await main(['investigation', 'add', id, one, two])).toBe(2);
    expect(io.err).toMatch(/are both named nginx\.log/);
    expect(io.err).toContain(join(home, '.sandscope'));
    io.out = '';
    expect(await follow(io.err)).toBe(0);
    expect(io.out).toMatch(/Added web-1\/nginx\.log[\s\S]*Added web-2\/nginx\.log/);
    // No second, empty database beside the logs: the one in d2-home has both files.
    expect(existsSync(join(tmp, 'd2-incident', '.sandscope'))).toBe(false);
    process.chdir(home);
    vi.stubEnv('SANDSCOPE_DATA_DIR', undefined);
    expect(await paths(id)).toEqual(expect.arrayContaining(['web-1/nginx.log', 'web-2/nginx.log']));
  });

  it('from a folder above the logs, it gives their relative paths and no change of folder', async () => {
    const above = folder('d2-above');
    const [one, two] = twoHosts(join('d2-above', 'logs'));
    process.chdir(above);
    vi.stubEnv('SANDSCOPE_DATA_DIR', undefined);
    const id = await newInvestigation('two hosts, above');
    io.err = '';
    expect(await main(['investigation', 'add', id, one, two])).toBe(2);
    expect(io.err).toContain(`\`sandscope investigation add ${id} logs/web-1/nginx.log logs/web-2/nginx.log\``);
    expect(await follow(io.err)).toBe(0);
    expect(await paths(id)).toEqual(expect.arrayContaining(['logs/web-1/nginx.log', 'logs/web-2/nginx.log']));
  });
});

describe('an unknown id in a database with no investigations names that database (S-192)', () => {
  it('in a folder with no database: says where it looked, and creates none there', async () => {
    const elsewhere = folder('d2-elsewhere');
    const log = join(elsewhere, 'f.log');
    writeFileSync(log, 'one line\n');
    process.chdir(elsewhere);
    vi.stubEnv('SANDSCOPE_DATA_DIR', undefined);
    const id = randomUUID();
    for (const argv of [
      ['investigation', 'add', id, log],
      ['investigation', 'show', id],
      ['investigation', 'ask', id, 'why?'],
    ]) {
      io.err = '';
      expect(await main(argv), argv.join(' ')).toBe(2);
      expect(io.err).toMatch(new RegExp(`^sandscope: There is no investigation ${id}`));
      expect(io.err).toContain(join(elsewhere, '.sandscope'));
      expect(io.err).toContain('SANDSCOPE_DATA_DIR');
      expect(io.err).not.toMatch(HTTP_ONLY);
    }
    io.out = '';
    expect(await main(['investigation', 'list'])).toBe(0);
    expect(io.out).toContain(join(elsewhere, '.sandscope'));
    expect(existsSync(join(elsewhere, '.sandscope'))).toBe(false);
  });

  it('in a database whose investigations were all deleted: says it holds none, and where it is', async () => {
    const data = join(folder('d2-emptied'), 'data');
    vi.stubEnv('SANDSCOPE_DATA_DIR', data);
    const id = await newInvestigation('short-lived');
    expect(await main(['investigation', 'rm', id])).toBe(0);
    io.err = '';
    expect(await main(['investigation', 'show', id])).toBe(2);
    expect(io.err).toMatch(new RegExp(`^sandscope: There is no investigation ${id}`));
    expect(io.err).toMatch(/holds no investigations/);
    expect(io.err).toContain(data);
  });
});
