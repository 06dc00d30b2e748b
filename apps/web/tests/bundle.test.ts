import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/*
 * T-12: the agent token never reaches the browser. Build the website with a
 * random token in the environment, then search everything the browser can
 * download (`<distDir>/static`) for the token's VALUE and for the variable's
 * NAME. Either one in a client bundle means some client code reads the token.
 */

const run = promisify(execFile);
const WEB = resolve(import.meta.dirname, '..');
const DIST = '.next-bundle-test';
const OUT = join(WEB, DIST);
const TOKEN = `t12-${randomBytes(24).toString('hex')}`;
const NAME = ['AGENT', 'TOKEN'].join('_');

function files(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((entry) => {
    const full = join(dir, entry);
    return statSync(full).isDirectory() ? files(full) : [full];
  });
}

function containing(paths: readonly string[], needle: string): string[] {
  return paths.filter((p) => readFileSync(p).includes(needle)).map((p) => relative(WEB, p));
}

describe('the client bundle (T-12)', () => {
  // `next build` rewrites the tracked next-env.d.ts to point at this build's directory; it is put back after,
  // so running the tests never leaves a change to commit (a merge once carried the rewritten file in).
  const nextEnv = join(WEB, 'next-env.d.ts');
  let nextEnvText: Buffer | undefined;
  beforeAll(async () => {
    rmSync(OUT, { recursive: true, force: true });
    nextEnvText = readFileSync(nextEnv);
    await run('npx', ['next', 'build'], {
      cwd: WEB,
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', NEXT_DIST_DIR: DIST, [NAME]: TOKEN, AGENT_URL: 'http://127.0.0.1:65530' },
      maxBuffer: 64 * 1024 * 1024,
    });
  }, 600_000);

  afterAll(() => {
    rmSync(OUT, { recursive: true, force: true });
    if (nextEnvText) writeFileSync(nextEnv, nextEnvText);
  });

  it('built client assets to search (else the search below proves nothing)', () => {
    const js = files(join(OUT, 'static')).filter((f) => f.endsWith('.js'));
    expect(js.length).toBeGreaterThan(5);
    // canary: the scan does find strings the client really ships (the console's fetch target)
    expect(containing(js, '/api/runs').length).toBeGreaterThan(0);
  });

  it('holds neither the token value nor the variable name anywhere under static/', () => {
    const assets = files(join(OUT, 'static'));
    expect(containing(assets, TOKEN)).toEqual([]);
    expect(containing(assets, NAME)).toEqual([]);
  });

  it('reads the token at run time on the server: the name is in server code, the value in no build output', () => {
    const all = files(OUT).filter((f) => !f.includes(`${DIST}/cache/`));
    expect(containing(files(join(OUT, 'server')), NAME).length).toBeGreaterThan(0);
    expect(containing(all, TOKEN)).toEqual([]);
  });
});
