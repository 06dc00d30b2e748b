import { describe, expect, it } from 'vitest';
import { fileLines } from './file-lines.ts';
import { readFileWindow } from './read-file.ts';

/** Seed #20's four cases, each seen red first (the caps removed, the offset ignored, the long line returned whole). */
const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1} GET /orders 200`).join('\n');

describe('read_file caps and pagination (seed #20)', () => {
  it('returns a small file whole, numbered, with no notice', () => {
    const w = readFileWindow('app.log', 'alpha\nbeta\ngamma\n', {}, { maxLines: 2000, maxChars: 200_000 });
    expect(w).toMatchObject({ startLine: 1, endLine: 3, totalLines: 3, truncated: false, notice: null });
    expect(w.text).toBe('1\talpha\n2\tbeta\n3\tgamma');
  });

  it('caps a long file at READ_FILE_MAX_LINES and says how much was elided and how to read on', () => {
    const w = readFileWindow('app.log', numbered(5000), {}, { maxLines: 2000, maxChars: 200_000 });
    expect(w).toMatchObject({ startLine: 1, endLine: 2000, totalLines: 5000, truncated: true });
    expect(w.lines).toHaveLength(2000);
    expect(w.notice).toMatch(/Showed lines 1-2000 of 5000 \(READ_FILE_MAX_LINES=2000\); 3000 more lines \(\d+ characters\) not shown/);
    expect(w.notice).toMatch(/offset=2001/);
    expect(w.text.endsWith(w.notice!)).toBe(true);
    // A limit above the cap is held to it.
    expect(readFileWindow('app.log', numbered(5000), { limit: 4000 }, { maxLines: 2000, maxChars: 200_000 }).endLine).toBe(2000);
  });

  it('returns the offset/limit window, numbered from the offset', () => {
    const w = readFileWindow('app.log', numbered(5000), { offset: 4312, limit: 7 }, { maxLines: 2000, maxChars: 200_000 });
    expect(w).toMatchObject({ startLine: 4312, endLine: 4318, truncated: false });
    expect(w.lines).toEqual(Array.from({ length: 7 }, (_, i) => `line ${4312 + i} GET /orders 200`));
    expect(w.text.split('\n')[0]).toBe('4312\tline 4312 GET /orders 200');
    expect(w.notice).toMatch(/offset=4319/);
    const past = readFileWindow('app.log', numbered(10), { offset: 11 }, { maxLines: 2000, maxChars: 200_000 });
    expect(past.lines).toEqual([]);
    expect(past.notice).toMatch(/has 10 lines; offset 11 is past its end/);
  });

  it('caps by READ_FILE_MAX_CHARS: a pathological long line is cut, with a notice', () => {
    const long = `${'x'.repeat(1_000_000)}`;
    const w = readFileWindow('bundle.min.js', `${long}\nnext\n`, {}, { maxLines: 2000, maxChars: 1000 });
    expect(w.text.length).toBeLessThanOrEqual(1000 + w.notice!.length);
    expect(w.lines).toHaveLength(1);
    expect(w.lines[0]!.length).toBeLessThan(1000);
    expect(w.truncated).toBe(true);
    expect(w.notice).toMatch(/line 1 is 1000000 characters; the first \d+ are shown and \d+ elided \(READ_FILE_MAX_CHARS=1000\)/);
    expect(w.notice).toMatch(/offset=2/);
    // Many ordinary lines stop at the char budget on a line boundary.
    const many = readFileWindow('app.log', numbered(500), {}, { maxLines: 2000, maxChars: 1000 });
    expect(many.text.length - many.notice!.length).toBeLessThanOrEqual(1000);
    expect(many.notice).toMatch(new RegExp(`offset=${many.endLine + 1} and a smaller limit`));
  });

  it('counts lines as a person does: a trailing newline ends the last line, CRLF is one break', () => {
    expect(fileLines('a\r\nb\r\n')).toEqual(['a', 'b']);
    expect(fileLines('')).toEqual([]);
    expect(fileLines('a\n\nb')).toEqual(['a', '', 'b']);
  });
});

describe('read_file cuts text as Unicode', () => {
  it('never splits a surrogate pair when a long line is cut at READ_FILE_MAX_CHARS (Postgres refuses the half in jsonb)', () => {
    // "1\t" takes 2 of the 20 characters and the newline 1: 17 are left, and the emoji's halves are units 16 and 17.
    const w = readFileWindow('app.log', `${'x'.repeat(16)}\u{1F600}${'y'.repeat(50)}\n`, {}, { maxLines: 2000, maxChars: 20 });
    expect(w.lines[0]).toBe('x'.repeat(16));
    expect(w.text).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
  });
});
