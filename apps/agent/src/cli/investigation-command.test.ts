import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { INCIDENT_CONFIG, incidentLog } from '@sandscope/engine/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { probeJail } from '../sandbox/bwrap-runner.ts';
import { main } from './main.ts';
import { captureOutput } from './testing/capture-output.ts';

/**
 * `sandscope investigation …` (issue 10) in-process against an embedded
 * database on disk, opened the way a person's terminal would (SANDSCOPE_DATA_DIR),
 * on a fresh directory: the workspace creates its database rather than refusing.
 */
const io = captureOutput();
const tmp = mkdtempSync(join(tmpdir(), 'sandscope-investigation-'));
const log = join(tmp, 'app.log');
const config = join(tmp, 'values.json');
const binary = join(tmp, 'heap.bin');

beforeAll(() => {
  writeFileSync(log, incidentLog());
  writeFileSync(config, INCIDENT_CONFIG);
  writeFileSync(binary, new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0, 0, 1]));
  vi.stubEnv('SANDSCOPE_DATA_DIR', join(tmp, 'data'));
  vi.stubEnv('DATABASE_URL', '');
});
afterAll(() => {
  vi.unstubAllEnvs();
  rmSync(tmp, { recursive: true, force: true });
});

const oneLine = () => {
  expect(io.err.trim().split('\n')).toHaveLength(1);
  expect(io.err).not.toMatch(/\n\s+at /);
  expect(io.err).toMatch(/^sandscope: /);
};

describe('sandscope investigation', () => {
  let id: string;

  it('new prints the id; add stores files; ask answers twice, the follow-up resolved; show --json reloads metrics', async () => {
    expect(await main(['investigation', 'new', 'checkout', '502s'])).toBe(0);
    id = io.out.trim();
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await main(['investigation', 'add', id, log, config])).toBe(0);
    expect(io.out).toMatch(/Added app\.log \(\d+ bytes\)[\s\S]*Added values\.json/);

    io.out = '';
    expect(await main(['investigation', 'ask', id, 'Why is checkout getting 502s from orders-db?', '--json'])).toBe(0);
    const first = JSON.parse(io.out);
    // The turn as the API's `turn` gives it, unknown, notes and mode included.
    expect(Object.keys(first)).toEqual(
      expect.arrayContaining(['investigationId', 'turnId', 'answer', 'claims', 'citations', 'toolCalls', 'unknown', 'notes', 'mode', 'passages', 'metrics']),
    );
    expect(first.mode).toBe('offline');
    expect(first.citations).toContainEqual({ kind: 'file', path: 'app.log', startLine: 4400, endLine: 4400 });
    io.out = '';
    expect(await main(['investigation', 'ask', id, 'and when did it start?'])).toBe(0);
    expect(io.out).toMatch(/earliest line in app\.log .* is line 4312/);
    expect(io.out).toMatch(/Cited: app\.log:4312-4318/);
    expect(io.out).toMatch(/— \d+ prompt \+ \d+ completion tokens, \d+ ms, \$0\.0000, offline/);

    io.out = '';
    expect(await main(['investigation', 'show', id, '--json'])).toBe(0);
    const shown = JSON.parse(io.out);
    expect(shown.files.map((f: { path: string; status: string }) => [f.path, f.status])).toEqual([
      ['app.log', 'ok'],
      ['values.json', 'ok'],
    ]);
    expect(shown.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(shown.messages[1].metrics).toEqual(first.metrics);
    io.out = '';
    expect(await main(['investigation', 'show', id])).toBe(0);
    expect(io.out).toMatch(/Sandscope: [\s\S]*\n {2}— \d+ prompt \+/);
    io.out = '';
    expect(await main(['investigation', 'list'])).toBe(0);
    expect(io.out).toContain(`${id}  checkout 502s  (2 files, 4 messages)`);
  });

  // S-229: a User-Agent is the client's to write; quoted raw, it set the terminal's title and cleared its screen.
  it('prints a file line holding terminal escapes written out, as text and as JSON', async () => {
    const hostile = join(tmp, 'ua.log');
    writeFileSync(
      hostile,
      '10.0.0.9 - - [14/May/2024:03:12:06 +0000] "GET /api/checkout HTTP/1.1" 502 0 "-" "\x1b]0;pwned\x07\x1b[2J\x9b31m evil-agent\u202e"\n',
    );
    io.out = '';
    expect(await main(['investigation', 'new', 'escapes'])).toBe(0);
    const escapes = io.out.trim();
    expect(await main(['investigation', 'add', escapes, hostile])).toBe(0);
    for (const json of [false, true]) {
      io.out = '';
      expect(await main(['investigation', 'ask', escapes, 'what returned 502?', ...(json ? ['--json'] : [])])).toBe(0);
      expect(io.out).toContain('\\u001b]0;pwned\\u0007\\u001b[2J\\u009b31m evil-agent\\u202e');
      expect(io.out).not.toMatch(/[\x1b\x07\x9b\u202e]/);
      if (json) expect(JSON.parse(io.out).answer).toContain('\x1b]0;pwned');
    }
  });

  // S-231: `add ID ok.log b.bin` said only that b.bin was not added; ok.log was not added either.
  it('says that none of the files was added when it refuses one of several', async () => {
    io.out = '';
    expect(await main(['investigation', 'new', 'several'])).toBe(0);
    const several = io.out.trim();
    io.err = '';
    expect(await main(['investigation', 'add', several, log, binary])).toBe(2);
    oneLine();
    expect(io.err).toMatch(/^sandscope: heap\.bin .* None of the 2 files was added\.\n$/);
    io.out = '';
    expect(await main(['investigation', 'show', several, '--json'])).toBe(0);
    expect(JSON.parse(io.out).files).toEqual([]);
    io.err = '';
    expect(await main(['investigation', 'add', several, binary])).toBe(2);
    expect(io.err).not.toContain('None of');
  });

  it('refuses bad input in one line, before anything is written', async () => {
    for (const argv of [
      ['investigation', 'add', id, binary],
      ['investigation', 'add', id, join(tmp, 'missing.log')],
      ['investigation', 'ask', id, '   '],
      ['investigation', 'ask', randomUUID(), 'hello?'],
      ['investigation', 'show', 'not-an-id'],
      ['investigation', 'new'],
      ['investigation', 'frobnicate'],
    ]) {
      io.err = '';
      expect(await main(argv), argv.join(' ')).toBe(2);
      oneLine();
    }
    io.err = '';
    await main(['investigation', 'add', id, binary]);
    expect(io.err).toMatch(/heap\.bin was not added: it is binary.*Add text files only/);
    // A text file before a binary one: neither is added (the first was, before the second was refused).
    const good = join(tmp, 'good.log');
    writeFileSync(good, 'one good line\n');
    io.err = '';
    expect(await main(['investigation', 'add', id, good, binary])).toBe(2);
    oneLine();
    expect(io.err).toMatch(/heap\.bin was not added: it is binary/);
    io.out = '';
    await main(['investigation', 'show', id, '--json']);
    const after = JSON.parse(io.out);
    expect(after.files).toHaveLength(2);
    expect(after.messages).toHaveLength(4);
  });

  it("keeps a file added by a relative path under that path, so two hosts' logs of one name stay apart", async () => {
    const hosts = join(tmp, 'incident');
    for (const host of ['web-1', 'web-2']) {
      mkdirSync(join(hosts, host), { recursive: true });
      writeFileSync(join(hosts, host, 'nginx.log'), `${host} 502\n`);
    }
    const cwd = process.cwd();
    process.chdir(hosts);
    try {
      expect(await main(['investigation', 'add', id, 'web-1/nginx.log', './web-2/nginx.log'])).toBe(0);
    } finally {
      process.chdir(cwd);
    }
    io.out = '';
    await main(['investigation', 'show', id, '--json']);
    const paths = JSON.parse(io.out).files.map((f: { path: string }) => f.path);
    expect(paths).toEqual(expect.arrayContaining(['web-1/nginx.log', 'web-2/nginx.log']));
    // A relative path the store would refuse is refused before any file of the command is added.
    const deep = join(hosts, 'd'.repeat(200), 'e'.repeat(60));
    mkdirSync(deep, { recursive: true });
    writeFileSync(join(deep, 'x.log'), 'x\n');
    writeFileSync(join(hosts, 'first.log'), 'first\n');
    process.chdir(hosts);
    try {
      io.err = '';
      expect(await main(['investigation', 'add', id, 'first.log', `${'d'.repeat(200)}/${'e'.repeat(60)}/x.log`])).toBe(2);
    } finally {
      process.chdir(cwd);
    }
    oneLine();
    expect(io.err).toMatch(/x\.log was not added: /);
    io.out = '';
    await main(['investigation', 'show', id, '--json']);
    expect(JSON.parse(io.out).files.map((f: { path: string }) => f.path)).not.toContain('first.log');
  });

  it('refuses a file whose name holds a bidi control or would be trimmed, as the API does, before adding any (S-213)', async () => {
    const named = join(tmp, 'named');
    mkdirSync(named, { recursive: true });
    for (const name of ['first.log', 'exe\u202egol.log', ' sp.log']) writeFileSync(join(named, name), 'x\n');
    const cwd = process.cwd();
    process.chdir(named);
    try {
      io.err = '';
      expect(await main(['investigation', 'add', id, 'first.log', 'exe\u202egol.log'])).toBe(2);
      oneLine();
      // The line begins with the name escaped too: typed as is, its bidi control reordered the refusal itself.
      expect(io.err).toMatch(/^sandscope: "exe\\u202egol\.log" was not added: the path "exe\\u202egol\.log" contains a bidi control \(U\+202E\)/);
      expect(io.err).not.toContain('\u202e');
      io.err = '';
      expect(await main(['investigation', 'add', id, ' sp.log'])).toBe(2);
      expect(io.err).toMatch(/ sp\.log was not added: the path " sp\.log" begins or ends with a space; send "sp\.log"/);
    } finally {
      process.chdir(cwd);
    }
    io.out = '';
    await main(['investigation', 'show', id, '--json']);
    const paths = JSON.parse(io.out).files.map((f: { path: string }) => f.path);
    expect(paths).not.toContain('first.log');
    expect(paths).not.toContain('sp.log');
  });

  it('refuses two files of one name before adding either, and says when a file replaces one of its name', async () => {
    const other = join(tmp, 'host2');
    mkdirSync(other, { recursive: true });
    writeFileSync(join(other, 'app.log'), 'only one line\n');
    io.err = '';
    expect(await main(['investigation', 'add', id, config, log, join(other, 'app.log')])).toBe(2);
    oneLine();
    expect(io.err).toMatch(/are both named app\.log: an investigation keeps one file per name/);
    io.out = '';
    await main(['investigation', 'show', id, '--json']);
    const kept = JSON.parse(io.out).files.find((f: { path: string }) => f.path === 'app.log');
    expect(kept.sizeBytes).toBe(statSync(log).size);

    io.out = '';
    expect(await main(['investigation', 'add', id, join(other, 'app.log')])).toBe(0);
    expect(io.out).toContain(`Replaced app.log in ${id}: it was ${statSync(log).size} bytes, it is now ${join(other, 'app.log')} (14 bytes).`);
  });
});

// S-243: with the built jq deleted after `tools build`, ask called it, printed "jq (sandboxed) (refused)" and nothing
// said a tool had failed or what to do. (A package broken after start-up, under `serve`: sandboxed-turn.int.test.ts.)
describe.skipIf(!probeJail().ok)('sandscope investigation ask with a sandboxed tool broken', () => {
  it('says the broken tool is not offered and to build the tools again', async () => {
    const toolsDir = join(tmp, 'tools-broken');
    vi.stubEnv('TOOLS_DIR', toolsDir);
    vi.stubEnv('TOOLS_TEMPLATE', 'apps/agent/tools/templates/log-tools.json');
    expect(await main(['tools', 'build'])).toBe(0);
    io.out = '';
    expect(await main(['investigation', 'new', 'broken jq'])).toBe(0);
    const id = io.out.trim();
    expect(await main(['investigation', 'add', id, config])).toBe(0);
    rmSync(join(toolsDir, 'jq', 'bin', 'jq'));
    io.out = '';
    expect(await main(['investigation', 'ask', id, 'What is the pool max in values.json?'])).toBe(0);
    // Its package is broken before the turn starts: jq is not offered, and that is said, with what to do.
    expect(io.err).toContain('Not built (or broken), so not offered: jq — run `npx sandscope tools build`');
    expect(io.out).toMatch(/\nTools: list_files/);
    expect(io.out).not.toMatch(/\bjq\b/);
  });
});
