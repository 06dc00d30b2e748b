import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from './main.ts';
import { captureOutput } from './testing/capture-output.ts';

/** What a person sees at the CLI boundary: an answer, or one line saying what to do — never a stack trace. */
const io = captureOutput();

const tmp = mkdtempSync(join(tmpdir(), 'sandscope-cli-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const oneLine = () => {
  expect(io.err.trim().split('\n')).toHaveLength(1);
  expect(io.err).not.toMatch(/\n\s+at /);
  expect(io.err).toMatch(/^sandscope: /);
};

describe('the done-when questions of the core issue', () => {
  it('answers the orders-db ceiling, citing the passage that states 100', async () => {
    expect(await main(['ask', '--json', 'What is the connection pool ceiling for orders-db?'])).toBe(0);
    const r = JSON.parse(io.out) as { verdict: string; claims: { text: string; citations: string[] }[]; sources: { chunkId: string; text: string }[] };
    expect(r.verdict).toBe('answered');
    const cited = r.sources.filter((s) => r.claims.some((c) => c.citations.includes(s.chunkId)));
    expect(cited.some((s) => /\b100\b/.test(s.text) && s.text.includes('orders-db'))).toBe(true);
  });
  it('refuses the events-bus ceiling (documented for orders-db only) and a DNS question', async () => {
    expect(await main(['ask', '--json', 'What is the connection pool ceiling for events-bus?'])).toBe(0);
    expect(JSON.parse(io.out)).toMatchObject({ verdict: 'refused', terminal: 'refuse', claims: [] });
    io.out = '';
    expect(await main(['ask', '--json', 'How do we rotate DNS records for the storefront?'])).toBe(0);
    expect(JSON.parse(io.out)).toMatchObject({ verdict: 'refused', terminal: 'refuse', claims: [] });
  });
});

describe('bad input gets one line and a non-zero exit', () => {
  it('an empty question', async () => {
    expect(await main(['ask', '   '])).toBe(2);
    oneLine();
    expect(io.err).toMatch(/question is empty/);
  });
  it('an over-long question', async () => {
    expect(await main(['ask', 'why '.repeat(400)])).toBe(2);
    oneLine();
    expect(io.err).toMatch(/limit is 1000/);
  });
  it('a missing corpus folder, a file given as a folder, an empty folder', async () => {
    expect(await main(['ask', '--corpus', join(tmp, 'nope'), 'q?'])).toBe(2);
    oneLine();
    expect(io.err).toMatch(/corpus folder not found/);
    io.err = '';
    writeFileSync(join(tmp, 'file.md'), '# x');
    expect(await main(['ask', '--corpus', join(tmp, 'file.md'), 'q?'])).toBe(2);
    expect(io.err).toMatch(/must be a folder/);
    io.err = '';
    mkdirSync(join(tmp, 'empty'));
    expect(await main(['ask', '--corpus', join(tmp, 'empty'), 'q?'])).toBe(2);
    expect(io.err).toMatch(/no markdown/);
  });
  it('an unreadable file (a dangling link: unreadable even to root, which CI runs as)', async () => {
    mkdirSync(join(tmp, 'unreadable'));
    writeFileSync(join(tmp, 'unreadable', 'ok.md'), '# Ok\n\nA passage about the ledger that is long enough to index on its own.');
    symlinkSync(join(tmp, 'does-not-exist.md'), join(tmp, 'unreadable', 'gone.md'));
    expect(await main(['ask', '--corpus', join(tmp, 'unreadable'), 'q?'])).toBe(2);
    oneLine();
    expect(io.err).toMatch(/cannot read .*gone\.md: ENOENT/);
  });
  it('an unknown option and an unknown command', async () => {
    expect(await main(['ask', '--nope', 'q?'])).toBe(2);
    oneLine();
    io.err = '';
    expect(await main(['frobnicate'])).toBe(2);
    oneLine();
    expect(io.err).toMatch(/unknown command "frobnicate"/);
  });
  it('a malformed question file stops before scoring, naming the lines; --skip-bad scores the rest', async () => {
    const file = join(tmp, 'q.jsonl');
    writeFileSync(file, '{"question":"What is the pool ceiling for orders-db?","label":"answerable"}\nnot json\n{"question":"DNS?","label":"nope"}\n{"question":"How do we rotate DNS?","label":"unanswerable"}\n');
    expect(await main(['eval', '--questions', file, '--json'])).toBe(2);
    oneLine();
    expect(io.err).toMatch(/2 malformed line\(s\).*line 2: not JSON.*line 3: label/);
    io.err = '';
    expect(await main(['eval', '--questions', file, '--json', '--skip-bad'])).toBe(0);
    expect(JSON.parse(io.out)).toMatchObject({ n: 2, mode: 'shipped-thresholds' });
    expect(io.err).toMatch(/skipped 2 malformed line\(s\): 2, 3/);
  });
});
