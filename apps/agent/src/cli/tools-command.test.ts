import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, expect, it, vi } from 'vitest';
import { main } from './main.ts';
import { captureOutput } from './testing/capture-output.ts';

const io = captureOutput();
const tmp = mkdtempSync(join(tmpdir(), 'sandscope-tools-'));
afterAll(() => {
  vi.unstubAllEnvs();
  rmSync(tmp, { recursive: true, force: true });
});

// S-237: a colleague's audit set TOOLS_DIR to a file and was told "internal error: EEXIST … This is a bug".
it('tools build with TOOLS_DIR naming a file says so in one line, and leaves the file as it was', async () => {
  const file = join(tmp, 'afile');
  writeFileSync(file, 'mine\n');
  vi.stubEnv('SANDSCOPE_DATA_DIR', join(tmp, 'data'));
  vi.stubEnv('TOOLS_DIR', file);
  expect(await main(['tools', 'build'])).toBe(2);
  expect(io.err).toBe(`sandscope: TOOLS_DIR ${file} is a file, not a folder; point TOOLS_DIR at a directory (it is made if missing).\n`);
  expect(readFileSync(file, 'utf8')).toBe('mine\n');
});

// S-243: the built jq deleted after `tools build` was listed "built offered" (the manifest alone was checked), and
// every jq call of a turn then failed.
it('tools list says a package with a built file deleted is broken, not offered, and to build again', async () => {
  const dir = join(tmp, 'tools');
  vi.stubEnv('SANDSCOPE_DATA_DIR', join(tmp, 'data-broken'));
  vi.stubEnv('TOOLS_DIR', dir);
  vi.stubEnv('TOOLS_TEMPLATE', 'apps/agent/tools/templates/log-tools.json');
  expect(await main(['tools', 'build'])).toBe(0);
  rmSync(join(dir, 'jq', 'bin', 'jq'));
  io.out = '';
  expect(await main(['tools', 'list'])).toBe(0);
  const jq = io.out.split('\n').find((l) => l.startsWith('  jq\t'));
  expect(jq).toMatch(/^ {2}jq\tbroken \(missing bin\/jq; run `npx sandscope tools build` again\)\tnot offered\t/);
  expect(io.out.split('\n').find((l) => l.startsWith('  log_summary\t'))).toMatch(/\tbuilt\t/);
});

/**
 * S-271: `TOOLS_DIR=/proc/nope sandscope tools build` never returned, at full CPU, without a word: Node's recursive
 * mkdir retries for ever where the kernel answers ENOENT though the parent exists (/proc), and so did a TOOLS_DIR that
 * is /proc itself, on its staging folder. Run as its own process, given 30 s: on the old build it is killed at the time
 * limit (status null), which an in-process call could not be (a synchronous loop).
 */
it.skipIf(!existsSync('/proc/self'))(
  'tools build with a TOOLS_DIR the file system will not make there fails in one line, not for ever',
  () => {
    const bin = resolve(import.meta.dirname, '../../bin/sandscope.js');
    for (const [dir, said] of [
      [
        '/proc/nope',
        'cannot write TOOLS_DIR /proc/nope: the file system there does not let a folder be made (ENOENT); point TOOLS_DIR at a writable directory.',
      ],
      [
        '/proc/self',
        'cannot write TOOLS_DIR /proc/self (making /proc/self/.jq.building): the file system there does not let a folder be made (ENOENT); point TOOLS_DIR at a writable directory.',
      ],
    ] as const) {
      const run = spawnSync(process.execPath, [bin, 'tools', 'build'], {
        encoding: 'utf8',
        timeout: 30_000,
        env: { ...process.env, SANDSCOPE_DATA_DIR: join(tmp, 'data-proc'), TOOLS_DIR: dir },
      });
      expect(run.status, `TOOLS_DIR=${dir}: ${run.signal ? `killed by ${run.signal} at the time limit` : run.stderr}`).toBe(2);
      expect(run.stderr).toBe(`sandscope: ${said}\n`);
      expect(run.stdout).toBe('');
    }
  },
  90_000,
);
