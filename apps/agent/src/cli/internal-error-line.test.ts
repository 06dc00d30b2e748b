import { describe, expect, it } from 'vitest';
import { internalErrorLine } from './main.ts';

describe('the line for a failure nobody foresaw', () => {
  it('says what was thrown even when it is no Error: PGlite’s ErrnoError printed "[object Object]"', () => {
    const line = internalErrorLine({ name: 'ErrnoError', errno: 51 });
    expect(line).toBe('sandscope: internal error: ErrnoError ENOSPC (errno 51). This is a bug; rerun with SANDSCOPE_DEBUG=1 for details.\n');
    expect(line).not.toContain('[object Object]');
  });

  it('says an Error by its message, in one line', () => {
    expect(internalErrorLine(new Error('boom'))).toBe('sandscope: internal error: boom. This is a bug; rerun with SANDSCOPE_DEBUG=1 for details.\n');
  });
});
