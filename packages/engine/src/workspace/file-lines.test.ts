import { beforeAll, describe, expect, it } from 'vitest';
import type { KnowledgeBase } from '../knowledge-base.ts';
import { corpusKnowledgeBase } from '../orchestrator/testing/corpus-fixture.ts';
import { HashingEmbedder } from '../retrieval/hashing-embedder.ts';
import { fileLines } from './file-lines.ts';
import { filePassages } from './file-passages.ts';
import { planOffline } from './planner.ts';
import { WorkspaceToolbox } from './tools.ts';
import { InMemoryWorkspaceFiles } from './workspace-files.ts';

/**
 * S-272: a log whose lines end in a bare `\r` (classic Mac OS, some devices' consoles) was one line to every tool —
 * read_file gave the whole file as line 1, search_files cited every hit as line 1, and a question about a time found
 * no line stamped in it. Seen red on the old split (`\n` only, a `\r` before it dropped).
 */
const LINES = [
  '2024-05-14T03:11:58Z INFO checkout started',
  '2024-05-14T03:12:01Z ERROR upstream timeout to payments-api',
  '2024-05-14T03:12:02Z ERROR upstream timeout to payments-api',
  '2024-05-14T03:13:30Z INFO recovered',
];

let kb: KnowledgeBase;
beforeAll(async () => {
  kb = await corpusKnowledgeBase();
});

describe('fileLines: every line ending is a line break (S-272)', () => {
  it('splits at \\r\\n, \\n and a bare \\r alike; a break at the very end ends the last line', () => {
    for (const ending of ['\n', '\r\n', '\r']) expect(fileLines(`${LINES.join(ending)}${ending}`), JSON.stringify(ending)).toEqual(LINES);
    expect(fileLines('a\rb\nc\r\nd')).toEqual(['a', 'b', 'c', 'd']);
    // A blank line is a line whatever its ending: two breaks in a row, never one break of two characters.
    expect(fileLines('a\r\rb')).toEqual(['a', '', 'b']);
    expect(fileLines('a\n\r\nb')).toEqual(['a', '', 'b']);
    expect(fileLines('a\r')).toEqual(['a']);
    expect(fileLines('\r')).toEqual(['']);
    expect(fileLines('')).toEqual([]);
  });

  it('the tools count a CR-only log in lines: read_file, search_files, the embedded passages and a time window', async () => {
    const log = `${LINES.join('\r')}\r`;
    const files = new InMemoryWorkspaceFiles({ 'mac.log': log }, { embedder: new HashingEmbedder() });
    const box = new WorkspaceToolbox({ files, kb });

    const read = await box.call('read_file', { path: 'mac.log', offset: 2, limit: 1 });
    expect(read.ok && read.tool === 'read_file' && read.window.totalLines).toBe(4);
    expect(read.text.startsWith(`2\t${LINES[1]}\n[Showed lines 2-2 of 4; 2 more lines `)).toBe(true);

    const search = await box.call('search_files', { pattern: 'upstream timeout' });
    expect(search.ok && search.tool === 'search_files' && search.search.hits.filter((h) => h.match === 'text').map((h) => [h.line, h.text])).toEqual([
      [2, LINES[1]],
      [3, LINES[2]],
    ]);

    expect(filePassages(log)).toEqual([{ startLine: 1, endLine: 4, text: LINES.join('\n') }]);

    const window = await planOffline({
      message: 'what happened between 03:12 and 03:13?',
      history: [],
      historyMaxMessages: 40,
      toolbox: new WorkspaceToolbox({ files, kb }),
      kb,
    });
    expect(window.citations.filter((c) => c.kind === 'file')).toEqual([
      { kind: 'file', path: 'mac.log', startLine: 2, endLine: 3 },
      { kind: 'file', path: 'mac.log', startLine: 4, endLine: 4 },
    ]);
  });
});
