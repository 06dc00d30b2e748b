import { spawn } from 'node:child_process';
import { chmodSync, cpSync, lstatSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkOutFile, writeOutFile } from './out-file.ts';

/**
 * A write that fails part-way (S-209). The disk is not filled: the command runs as a real process under a file-size
 * limit (`ulimit -f`), so the kernel refuses the write past that many bytes (EFBIG) just as a full disk refuses it
 * (ENOSPC) — part of the file written, then an error — and every byte the command writes goes through the real code.
 */

const BIN = resolve(import.meta.dirname, '../../bin/sandscope.js');
const HARBOR = resolve(import.meta.dirname, '../../../../eval-corpora/harbor-runbooks');

/** `sandscope ARGS` in `cwd`, no file it writes growing past `blocks` 512-byte blocks (0: not one byte). */
function sandscopeLimited(cwd: string, blocks: number, args: string[]): Promise<{ code: number | null; err: string }> {
  // The limit is the shell's, passed on to node by exec; tsx's cache is off, as its files would meet the limit too.
  const child = spawn('sh', ['-c', `ulimit -f ${blocks} && exec "$0" "$@"`, process.execPath, BIN, ...args], {
    cwd,
    env: { PATH: process.env.PATH, HOME: process.env.HOME ?? tmpdir(), TSX_DISABLE_CACHE: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  child.stdout.resume();
  return new Promise((done) => child.on('close', (code) => done({ code, err })));
}

/** A copy of a small development corpus, and its hand-labelled questions: what `questions --force` replaced. */
function harborCopy(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'atomic-')), 'harbor-runbooks');
  cpSync(HARBOR, dir, { recursive: true });
  return dir;
}

describe.skipIf(process.platform === 'win32')('a write the disk refuses part-way leaves the old file as it was (S-209)', () => {
  it('questions --out FILE --force: the file it would replace is unchanged, and no half-written or temporary file is left', async () => {
    const dir = harborCopy();
    const labelled = readFileSync(join(dir, 'questions.jsonl'));
    const before = readdirSync(dir).sort();
    // One block: the generated set is longer, so the write fails part-way, as on a disk that fills while writing.
    const run = await sandscopeLimited(dir, 1, ['questions', '--corpus', '.', '--out', 'questions.jsonl', '--force']);
    expect(run.err).toBe(
      'sandscope: cannot write questions.jsonl: the file is over the size this system allows (EFBIG). Pass --out with a path you can write to.\n',
    );
    expect(run.code).toBe(2);
    expect(readFileSync(join(dir, 'questions.jsonl'))).toEqual(labelled);
    expect(readdirSync(dir).sort()).toEqual(before);
  }, 60_000);

  it('questions --out NEW: no file is left, so the same command run again is not refused as "already exists"', async () => {
    const dir = harborCopy();
    const before = readdirSync(dir).sort();
    const run = await sandscopeLimited(dir, 1, ['questions', '--corpus', '.', '--out', 'generated.jsonl']);
    expect(run.err).toMatch(/^sandscope: cannot write generated\.jsonl: the file is over the size this system allows \(EFBIG\)\./);
    expect(readdirSync(dir).sort()).toEqual(before);
    // The check a re-run without --force meets first, and was refused by ("generated.jsonl already exists").
    expect(() => checkOutFile(join(dir, 'generated.jsonl'), '--out', false)).not.toThrow();
  }, 60_000);

  it('calibrate --force: the earlier calibration is unchanged, not emptied, and the refusal is one line', async () => {
    const dir = harborCopy();
    const earlier = `${JSON.stringify({ insufficientBelow: 0.2, sufficientAbove: 0.8 })}\n`;
    writeFileSync(join(dir, 'thresholds.json'), earlier);
    const before = readdirSync(dir).sort();
    const run = await sandscopeLimited(dir, 0, ['calibrate', '--corpus', '.', '--force']);
    expect(run.err).toBe(
      `sandscope: cannot write ${join(dir, 'thresholds.json')}: the file is over the size this system allows (EFBIG); the earlier calibration there is as it was. Make ${dir} writable, or free space on its disk, and run calibrate again.\n`,
    );
    expect(readFileSync(join(dir, 'thresholds.json'), 'utf8')).toBe(earlier);
    expect(readdirSync(dir).sort()).toEqual(before);
  }, 60_000);
});

describe('a file written whole, then renamed into place', () => {
  it('replaces the content, keeps the permissions it had and leaves nothing beside it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'atomic-mode-'));
    const file = join(dir, 'feedback.jsonl');
    writeFileSync(file, 'old\n');
    chmodSync(file, 0o640);
    writeOutFile(file, 'new\n', '--out');
    expect(readFileSync(file, 'utf8')).toBe('new\n');
    expect(statSync(file).mode & 0o777).toBe(0o640);
    expect(readdirSync(dir)).toEqual(['feedback.jsonl']);
  });

  it('writes through a link to its target, the link kept, as a write in place did', () => {
    const dir = mkdtempSync(join(tmpdir(), 'atomic-link-'));
    writeFileSync(join(dir, 'real.jsonl'), 'old\n');
    symlinkSync('real.jsonl', join(dir, 'link.jsonl'));
    writeOutFile(join(dir, 'link.jsonl'), 'new\n', '--out');
    expect(readFileSync(join(dir, 'real.jsonl'), 'utf8')).toBe('new\n');
    expect(lstatSync(join(dir, 'link.jsonl')).isSymbolicLink()).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(['link.jsonl', 'real.jsonl']);
  });
});
