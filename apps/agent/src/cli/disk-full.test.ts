import { describe, expect, it, vi } from 'vitest';
import { diskFullLine } from './disk-full.ts';
import { main } from './main.ts';
import { captureOutput } from './testing/capture-output.ts';

const io = captureOutput();

describe('a full disk (S-230)', () => {
  it('is said as the machine’s state, however it is met, and anything else is left to the bug line', () => {
    const postgres = Object.assign(new Error('could not extend file "base/5/17193": No space left on device'), { code: '53100' });
    const node = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    for (const error of [postgres, node, { name: 'ErrnoError', errno: 51 }]) {
      expect(diskFullLine(error)).toMatch(
        /^sandscope: the disk is full \(.+\)\. Free space on the disk that holds SANDSCOPE_DATA_DIR \(or the file being written\), then run this again\.\n$/,
      );
    }
    expect(diskFullLine(new Error('boom'))).toBeNull();
    expect(diskFullLine({ name: 'ErrnoError', errno: 44 })).toBeNull();
  });

  it('reaches the person as that one line, not as "internal error … This is a bug"', async () => {
    const full = Object.assign(new Error('could not extend file "base/5/17193": No space left on device'), { code: '53100' });
    const spy = vi.spyOn(process.stdout, 'write').mockImplementationOnce(() => {
      throw full;
    });
    try {
      expect(await main(['graph'])).toBe(1);
    } finally {
      spy.mockRestore();
    }
    expect(io.err).toMatch(/^sandscope: the disk is full \(could not extend file "base\/5\/17193": No space left on device\)\./);
    expect(io.err).not.toContain('This is a bug');
  });
});
