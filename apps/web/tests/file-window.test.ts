import { describe, expect, it } from 'vitest';
import { fileWindow, WINDOW_LINES } from '../lib/file-window';

/* Which lines a workspace file's page shows (lib/file-window.ts). */

describe('fileWindow', () => {
  it('shows a short file whole', () => {
    expect(fileWindow(40, { start: 12, end: 14 })).toEqual({ first: 1, last: 40, earlier: null, later: null });
  });

  it('shows a large file around the cited range, not whole', () => {
    const w = fileWindow(128_028, { start: 100_001, end: 100_001 });
    expect(w).toEqual({ first: 99_801, last: 99_801 + WINDOW_LINES - 1, earlier: 99_801 - WINDOW_LINES, later: 99_801 + WINDOW_LINES });
    expect(fileWindow(128_028, null)).toEqual({ first: 1, last: WINDOW_LINES, earlier: null, later: WINDOW_LINES + 1 });
  });

  it('keeps a full page at the end of the file, and pages where the reader asked', () => {
    expect(fileWindow(5_000, { start: 4_990, end: 4_999 })).toMatchObject({ first: 4_001, last: 5_000, later: null });
    expect(fileWindow(5_000, null, '2001')).toEqual({ first: 2_001, last: 3_000, earlier: 1_001, later: 3_001 });
    expect(fileWindow(5_000, null, 'x')).toMatchObject({ first: 1 });
    // A range past the end (the file was replaced) shows the start of the file.
    expect(fileWindow(5_000, { start: 9_000, end: 9_010 })).toMatchObject({ first: 1 });
  });
});
