import { beforeAll, describe, expect, it } from 'vitest';
import type { KnowledgeBase } from '../knowledge-base.ts';
import { corpusKnowledgeBase } from '../orchestrator/testing/corpus-fixture.ts';
import { HashingEmbedder } from '../retrieval/hashing-embedder.ts';
import { planOffline, type TurnAnswer } from './planner.ts';
import { fileLines } from './file-lines.ts';
import { CHECKOUT_APP_LOG, CHECKOUT_EVENTS_JSONL, CHECKOUT_NGINX_LOG } from './testing-checkout-incident.ts';
import { WorkspaceToolbox } from './tools.ts';
import { InMemoryWorkspaceFiles } from './workspace-files.ts';

// A colleague's black-box audit of `sandscope investigation ask` (2026-12-07), over one incident in three formats.
let kb: KnowledgeBase;
beforeAll(async () => {
  kb = await corpusKnowledgeBase();
});

const INCIDENT = { 'app.log': CHECKOUT_APP_LOG, 'events.jsonl': CHECKOUT_EVENTS_JSONL, 'nginx.log': CHECKOUT_NGINX_LOG };

async function ask(message: string, contents: Readonly<Record<string, string>> = INCIDENT): Promise<TurnAnswer> {
  const files = new InMemoryWorkspaceFiles(contents, { embedder: new HashingEmbedder() });
  const a = await planOffline({ message, history: [], historyMaxMessages: 40, toolbox: new WorkspaceToolbox({ files, kb }), kb });
  // Every claim on file lines quotes the first line it cites, as that line is in the file.
  for (const claim of a.claims) {
    for (const c of claim.citations) {
      if (c.kind !== 'file') continue;
      const line = fileLines(contents[c.path] ?? '')[c.startLine - 1];
      expect(line, `${c.path}:${c.startLine}`).toBeDefined();
      expect(claim.text).toContain(line!.trim());
    }
  }
  return a;
}

const fileCitations = (a: TurnAnswer) => a.citations.filter((c) => c.kind === 'file');

describe('S-232: the first error is the earliest line by time across the files, not the first of the file named first', () => {
  it.each(['which service failed first?', 'what was the first error?'])('%s', async (question) => {
    const a = await ask(question);
    expect(fileCitations(a)[0]).toEqual({ kind: 'file', path: 'events.jsonl', startLine: 2, endLine: 2 });
    expect(a.claims[0]?.text).toMatch(
      /^The earliest line reporting trouble about .*, by timestamp across app\.log, events\.jsonl, is events\.jsonl line 2 \(2024-05-14T03:12:02Z\): .*out of disk space/,
    );
  });

  it('gives the same answer whatever the files are called', async () => {
    const renamed = await ask('what was the first error?', { 'a.log': CHECKOUT_APP_LOG, 'z.jsonl': CHECKOUT_EVENTS_JSONL, 'nginx.log': CHECKOUT_NGINX_LOG });
    expect(fileCitations(renamed)[0]).toEqual({ kind: 'file', path: 'z.jsonl', startLine: 2, endLine: 2 });
  });

  it('says when a file states no time it could compare, and where none does takes file order as before', async () => {
    const undated = CHECKOUT_APP_LOG.replace(/^\S+ /gm, '');
    const mixed = await ask('what was the first error?', { 'app.log': CHECKOUT_APP_LOG, 'worker.log': 'ERROR worker lost its lease\n' });
    expect(fileCitations(mixed)[0]).toEqual({ kind: 'file', path: 'app.log', startLine: 4, endLine: 4 });
    expect(mixed.unknown).toContain(
      'The lines found in worker.log state no time that could be read, so they could not be compared by time with the others; one of them may be earlier.',
    );
    const none = await ask('what was the first error?', { 'b.log': undated, 'a.log': 'ERROR worker lost its lease\n' });
    expect(fileCitations(none)[0]).toEqual({ kind: 'file', path: 'a.log', startLine: 1, endLine: 1 });
    expect(none.unknown.join(' ')).toMatch(/states a time that could be read, so their times could not be compared: the earliest line is taken in file order/);
  });
});

describe('S-233: a question that names a file is answered from that file, and its name is not searched for', () => {
  it('"what does nginx.log show?" quotes nginx.log, its 5xx first, and never says no line mentions "nginx.log"', async () => {
    const a = await ask('what does nginx.log show?');
    expect(fileCitations(a)).toEqual([
      { kind: 'file', path: 'nginx.log', startLine: 2, endLine: 3 },
      { kind: 'file', path: 'nginx.log', startLine: 4, endLine: 4 },
      { kind: 'file', path: 'nginx.log', startLine: 5, endLine: 5 },
    ]);
    expect(a.answer).not.toMatch(/mentions "nginx\.log"/);
  });

  it('"what errors are in events.jsonl?" cites every error line of events.jsonl and no other file', async () => {
    const a = await ask('what errors are in events.jsonl?');
    expect(
      fileCitations(a)
        .map((c) => c.kind === 'file' && `${c.path}:${c.startLine}`)
        .sort(),
    ).toEqual(['events.jsonl:2', 'events.jsonl:3', 'events.jsonl:4']);
    expect(a.answer).not.toMatch(/events\.jsonl"/);
  });

  it('knows a file by its stored path or its base name, as a whole word only', async () => {
    const files = { 'hosts/web-1/nginx.log': CHECKOUT_NGINX_LOG, 'app.log': CHECKOUT_APP_LOG, 'old-app.log': 'ERROR stale\n' };
    for (const question of ['what does hosts/web-1/nginx.log show?', 'what does nginx.log show?']) {
      expect(new Set(fileCitations(await ask(question, files)).map((c) => c.kind === 'file' && c.path))).toEqual(new Set(['hosts/web-1/nginx.log']));
    }
    const app = await ask('which errors does app.log have?', files);
    expect(new Set(fileCitations(app).map((c) => c.kind === 'file' && c.path))).toEqual(new Set(['app.log']));
    // A term the named file lacks is said to be missing from that file.
    expect((await ask('is there a kafka-broker-7 in nginx.log?')).unknown).toContain('No line of nginx.log mentions "kafka-broker-7".');
  });
});

describe('S-235: a plural the lines do not hold is searched as its singular', () => {
  it('"which errors did payments-svc log?" finds its ERROR lines and never says no line mentions "errors"', async () => {
    const a = await ask('which errors did payments-svc log?');
    expect(fileCitations(a)).toContainEqual({ kind: 'file', path: 'app.log', startLine: 4, endLine: 4 });
    expect(a.answer).not.toMatch(/mentions [^\n]*"errors"/);
    // Found as written (ERROR), not only by meaning.
    expect(a.answer).not.toMatch(/does not use the words "errors"/);
  });

  it('"which connections were refused?" quotes the refused connections as lines that hold the words', async () => {
    const a = await ask('which connections were refused?');
    expect(fileCitations(a)).toContainEqual({ kind: 'file', path: 'app.log', startLine: 4, endLine: 4 });
    expect(a.claims.find((c) => c.citations.some((x) => x.kind === 'file'))?.text).not.toMatch(/does not use the words "connections"/);
    expect(a.unknown.join(' ')).not.toMatch(/"connections"/);
  });
});

/** Seconds since midnight of a cited line's stamp, as the line writes it. */
const clockOf = (text: string) => {
  const m = /(?<!\d)(\d\d):(\d\d):(\d\d)(?![\d:])/.exec(text)!;
  return Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]);
};
const citedLines = (a: TurnAnswer) =>
  fileCitations(a).flatMap((c) =>
    c.kind === 'file'
      ? Array.from({ length: c.endLine - c.startLine + 1 }, (_, i) => fileLines(INCIDENT[c.path as keyof typeof INCIDENT])[c.startLine - 1 + i]!)
      : [],
  );
const shownLines = (a: TurnAnswer) => fileCitations(a).reduce((n, c) => n + (c.kind === 'file' ? c.endLine - c.startLine + 1 : 0), 0);

describe('S-234: a question about a time is answered with the lines stamped inside it, trouble first', () => {
  it('"what happened between 03:11 and 03:13?" cites the 03:12 errors of every file, and only lines inside the window', async () => {
    const a = await ask('what happened between 03:11 and 03:13?');
    const cited = fileCitations(a);
    for (const c of [
      { path: 'events.jsonl', startLine: 2, endLine: 2 },
      { path: 'app.log', startLine: 4, endLine: 4 },
      { path: 'app.log', startLine: 5, endLine: 6 },
      { path: 'nginx.log', startLine: 2, endLine: 3 },
    ]) {
      expect(cited).toContainEqual({ kind: 'file', ...c });
    }
    for (const line of citedLines(a)) {
      expect(clockOf(line)).toBeGreaterThanOrEqual(3 * 3600 + 11 * 60);
      expect(clockOf(line)).toBeLessThanOrEqual(3 * 3600 + 13 * 60 + 59);
    }
    // The lines of a window first in the order they were written, the trouble before the rest.
    expect(a.claims[0]?.citations[0]).toEqual({ kind: 'file', path: 'app.log', startLine: 3, endLine: 3 });
  });

  it('"what errors happened around 03:12?" cites the errors and 5xx of that minute in every file, and nothing else', async () => {
    const a = await ask('what errors happened around 03:12?');
    const cited = fileCitations(a);
    for (const c of [
      { path: 'app.log', startLine: 5, endLine: 6 },
      { path: 'nginx.log', startLine: 2, endLine: 3 },
      { path: 'nginx.log', startLine: 4, endLine: 4 },
      { path: 'nginx.log', startLine: 5, endLine: 5 },
      { path: 'events.jsonl', startLine: 2, endLine: 2 },
    ]) {
      expect(cited).toContainEqual({ kind: 'file', ...c });
    }
    for (const line of citedLines(a)) {
      expect(Math.floor(clockOf(line) / 60)).toBe(3 * 60 + 12);
      expect(line).toMatch(/error| 5\d\d /i);
    }
    expect(a.answer).not.toMatch(/mentions [^\n]*"errors"/);
  });

  it('reads a window in the file the question names only', async () => {
    const a = await ask('what happened in nginx.log between 03:12:05 and 03:12:10?');
    expect(fileCitations(a)).toEqual([
      { kind: 'file', path: 'nginx.log', startLine: 3, endLine: 3 },
      { kind: 'file', path: 'nginx.log', startLine: 4, endLine: 4 },
      { kind: 'file', path: 'nginx.log', startLine: 5, endLine: 5 },
    ]);
  });

  it('says when no line is stamped inside the window', async () => {
    const a = await ask('what happened at 04:30?');
    expect(fileCitations(a)).toEqual([]);
    expect(a.unknown).toContain('No line of app.log, events.jsonl, nginx.log stamped at 04:30 was found.');
  });

  it('says which file states no time, so none of its lines could be placed in the window', async () => {
    const a = await ask('what happened at 03:12?', { ...INCIDENT, 'values.json': '{ "pool": { "max": 20 } }\n' });
    expect(fileCitations(a).length).toBeGreaterThan(0);
    expect(a.unknown).toContain('No line of values.json states a time that could be read, so whether any of its lines belongs at 03:12 is unknown.');
  });
});

describe('S-236: when more lines match than the answer quotes, it says how many it left out', () => {
  it('counts the window lines no claim cites', async () => {
    const a = await ask('what happened between 03:11 and 03:13?');
    // app.log lines 3-9, events.jsonl 1-4 and nginx.log 1-6 are stamped inside it.
    const more = 7 + 4 + 6 - shownLines(a);
    expect(more).toBeGreaterThan(0);
    expect(a.answer).toContain(`\n${more} more matching lines not shown.`);
    expect(a.notes).toContain(`${more} more matching lines not shown.`);
  });

  it('counts the matching lines of a search no claim cites, and says nothing when every one is quoted', async () => {
    const worker = Array.from(
      { length: 7 },
      (_, i) => `2024-05-14T03:2${i}:00Z ERROR worker job ${String.fromCharCode(97 + i)}${'x'.repeat(i)} lost its lease`,
    ).join('\n');
    const a = await ask('what errors are in worker.log?', { 'worker.log': `${worker}\n` });
    const more = 7 - shownLines(a);
    expect(more).toBeGreaterThan(0);
    expect(a.answer).toContain(`${more} more matching line${more === 1 ? '' : 's'} not shown.`);
    expect((await ask('what errors are in events.jsonl?')).answer).not.toMatch(/not shown/);
  });
});
