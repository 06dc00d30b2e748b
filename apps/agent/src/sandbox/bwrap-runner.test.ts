import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InMemoryWorkspaceFiles } from '@sandscope/engine/workspace';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { BwrapRunner, PRLIMIT, probeJail } from './bwrap-runner.ts';

// existsSync and writeFileSync pass through to the real ones unless a test says otherwise (a full disk cannot be made here).
vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  return { ...actual, existsSync: vi.fn(actual.existsSync), writeFileSync: vi.fn(actual.writeFileSync) };
});

/**
 * The runner around the jail, without bubblewrap (the jail itself is
 * jail.int.test.ts): a stand-in bwrap drops the jail's arguments and runs on
 * the host whatever follows `--` — the limits wrapper, then the tool's argv.
 */
const dir = fs.mkdtempSync(join(tmpdir(), 'sandscope-fake-bwrap-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const fakeBwrap = join(dir, 'bwrap');
fs.writeFileSync(fakeBwrap, '#!/bin/sh\nwhile [ "$#" -gt 0 ] && [ "$1" != "--" ]; do shift; done\nshift\nexec "$@"\n', { mode: 0o755 });

const files = () => new InMemoryWorkspaceFiles({ 'app.log': 'ERROR boom\n' });
const node = (script: string) => [process.execPath, '-e', script];

describe('the bubblewrap runner', () => {
  it('decodes UTF-8 across output chunks: a character split between two reads is not replaced by U+FFFD', async () => {
    const runner = new BwrapRunner({ toolsDir: dir, bwrap: fakeBwrap, maxOutputChars: 1_000_000 });
    const out = await runner.run({ argv: node('process.stdout.write("€".repeat(200000))'), files: files() });
    expect(out).toMatchObject({ exitCode: 0, truncated: false });
    expect(out.stdout.includes('\uFFFD')).toBe(false);
    expect(out.stdout).toBe('€'.repeat(200_000));
  });

  it('kills the tool once its output reaches the cap, instead of letting it run on to the time limit', async () => {
    const runner = new BwrapRunner({ toolsDir: dir, bwrap: fakeBwrap, maxOutputChars: 1_000, timeoutMs: 8_000 });
    const started = Date.now();
    const out = await runner.run({ argv: ['/usr/bin/yes'], files: files() });
    expect(out).toMatchObject({ exitCode: null, timedOut: false, truncated: true });
    expect(out.stdout).toBe('y\n'.repeat(500));
    expect(Date.now() - started).toBeLessThan(4_000);
  });

  it('says the jail could not start without naming the host path of bwrap', async () => {
    const hidden = join(dir, 'srv-secret', 'bwrap');
    const runner = new BwrapRunner({ toolsDir: dir, bwrap: hidden });
    const out = await runner.run({ argv: ['/.tools/jq/run'], files: files() });
    expect(out).toMatchObject({ exitCode: null, stdout: '', timedOut: false });
    expect(out.stderr).toMatch(/^the jail could not start/);
    expect(out.stderr).not.toContain(dir);
    expect(out.stderr).not.toMatch(/spawn/);
  });

  it('runs the tool under memory, CPU-time and process-count limits, not only the wall clock', async () => {
    const runner = new BwrapRunner({ toolsDir: dir, bwrap: fakeBwrap, timeoutMs: 7_500 });
    const out = await runner.run({ argv: ['/bin/cat', '/proc/self/limits'], files: files() });
    expect(out.exitCode, out.stderr).toBe(0);
    const limit = (name: string) => new RegExp(`^${name}\\s+(\\S+)\\s+(\\S+)`, 'm').exec(out.stdout)?.slice(1);
    expect(limit('Max data size')).toEqual([String(512 * 1024 * 1024), String(512 * 1024 * 1024)]);
    expect(limit('Max cpu time')).toEqual(['8', '8']);
    expect(limit('Max processes')).toEqual(['64', '64']);
  });

  it('leaves out a name that is both a file and a folder on disk ("a" and "a/b"), in either order', async () => {
    const runner = new BwrapRunner({ toolsDir: dir, bwrap: fakeBwrap });
    for (const workspace of [
      { a: 'file', 'a/b': 'nested' },
      { 'a/b': 'nested', a: 'file' },
    ]) {
      const out = await runner.run({ argv: ['/bin/true'], files: new InMemoryWorkspaceFiles(workspace) });
      expect(out.exitCode).toBe(0);
    }
  });

  it('fails the run on a host failure while writing the files (a full disk), rather than running the tool without them', async () => {
    const runner = new BwrapRunner({ toolsDir: dir, bwrap: fakeBwrap });
    vi.mocked(fs.writeFileSync).mockImplementationOnce(() => {
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    });
    await expect(runner.run({ argv: ['/bin/true'], files: files() })).rejects.toMatchObject({ code: 'ENOSPC' });
  });

  it('offers no jail where prlimit is missing, saying so, rather than failing every run', () => {
    expect(probeJail(fakeBwrap)).toEqual({ ok: true, bwrap: fakeBwrap });
    const real = vi.mocked(fs.existsSync).getMockImplementation()!;
    vi.mocked(fs.existsSync).mockImplementation((path) => path !== PRLIMIT && real(path));
    try {
      expect(probeJail(fakeBwrap)).toEqual({ ok: false, reason: expect.stringMatching(/^prlimit \(util-linux\) is not installed/) });
    } finally {
      vi.mocked(fs.existsSync).mockImplementation(real);
    }
  });
});
