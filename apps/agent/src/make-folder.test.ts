import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeFolder } from './make-folder.ts';

const tmp = mkdtempSync(join(tmpdir(), 'sandscope-make-folder-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const codeOf = (fn: () => void): string | undefined => {
  try {
    fn();
    return undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code;
  }
};

describe('makeFolder (S-271)', () => {
  it('makes a folder and every missing one above it, and leaves one that is there as it is', () => {
    const deep = join(tmp, 'a', 'b', 'c');
    makeFolder(deep);
    expect(statSync(deep).isDirectory()).toBe(true);
    writeFileSync(join(deep, 'kept'), 'x');
    makeFolder(deep);
    expect(existsSync(join(deep, 'kept'))).toBe(true);
  });

  it('refuses a file, or a path through one, with the code a person is told about', () => {
    const file = join(tmp, 'afile');
    writeFileSync(file, 'mine\n');
    expect(codeOf(() => makeFolder(file))).toBe('EEXIST');
    expect(codeOf(() => makeFolder(join(file, 'below')))).toBe('ENOTDIR');
  });

  // Node's recursive mkdir never returns here; this one makes /proc/nope once and reports the refusal.
  it.skipIf(!existsSync('/proc/self'))('refuses a folder the kernel will not make under /proc, at once', () => {
    expect(codeOf(() => makeFolder('/proc/nope'))).toBe('ENOENT');
    expect(codeOf(() => makeFolder('/proc/self/nope/deeper'))).toBe('ENOENT');
  });
});
