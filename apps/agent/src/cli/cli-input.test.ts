import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from './main.ts';
import { captureOutput } from './testing/capture-output.ts';

const io = captureOutput();

describe('text that is not UTF-8 is refused, never taken altered (S-194)', () => {
  // What Node makes of `ask "$(printf 'caf\xe9 \xff\xfe latency')"`: each undecodable byte sequence becomes U+FFFD.
  const decoded = Buffer.from('caf\xe9 \xff\xfe latency', 'latin1').toString('utf8');

  it('ask exits 2 with one line saying the question is not valid UTF-8 and what to do, before anything runs', async () => {
    expect(decoded).toContain('\uFFFD');
    expect(await main(['ask', decoded])).toBe(2);
    expect(io.out).toBe('');
    expect(io.err).toBe(
      `sandscope: the text "${decoded}" is not valid UTF-8 (each \uFFFD marks bytes that could not be read), so it would be taken altered. Check that the terminal's encoding is UTF-8 (e.g. LANG=C.UTF-8) and retype it.\n`,
    );
  });

  it('so is any other free text from the command line: a feedback note, an investigation title', async () => {
    for (const argv of [
      ['feedback', '00000000-0000-4000-8000-000000000000', '--label', 'right', '--note', decoded],
      ['investigation', 'new', decoded],
    ]) {
      io.err = '';
      expect(await main(argv), argv[0]).toBe(2);
      expect(io.err, argv[0]).toMatch(/^sandscope: the text ".*" is not valid UTF-8 .*retype it\.\n$/);
    }
  });

  it('accented text typed as UTF-8 is a question like any other', async () => {
    expect(await main(['ask', '--json', 'café latency'])).toBe(0);
    expect(io.err).not.toMatch(/UTF-8/);
  });
});

describe('a --corpus folder without markdown (S-195)', () => {
  it('names both extensions read and the files it holds instead, a few and then how many more', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'no-markdown-'));
    writeFileSync(join(dir, 'a.txt'), 'The disk alert fires at 85 percent.\n');
    expect(await main(['ask', '--corpus', dir, 'q?'])).toBe(2);
    expect(io.err).toBe(
      `sandscope: no markdown (.md or .markdown) files in ${dir}; not read: a.txt. Put the runbooks there as .md or .markdown, or pass --corpus DIR pointing at them.\n`,
    );
    for (const name of ['b.rst', 'c.pdf', 'd.json']) writeFileSync(join(dir, name), 'x');
    writeFileSync(join(dir, 'README.md'), '# About these runbooks\n');
    io.err = '';
    expect(await main(['ask', '--corpus', dir, 'q?'])).toBe(2);
    expect(io.err).toMatch(/; not read: a\.txt, b\.rst, c\.pdf and 2 more\. /);
  });

  it('a folder holding only the corpus’s notes says they are its notes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'notes-only-'));
    writeFileSync(join(dir, 'README.md'), '# About these runbooks\n');
    expect(await main(['ask', '--corpus', dir, 'q?'])).toBe(2);
    expect(io.err).toContain("; not read: README.md (the corpus's notes). ");
  });

  it('an empty folder says so', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'empty-'));
    expect(await main(['ask', '--corpus', dir, 'q?'])).toBe(2);
    expect(io.err).toBe(
      `sandscope: no markdown (.md or .markdown) files in ${dir}, nor any other file. Put the runbooks there as .md or .markdown, or pass --corpus DIR pointing at them.\n`,
    );
  });
});
