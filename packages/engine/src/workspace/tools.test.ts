import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { KnowledgeBase } from '../knowledge-base.ts';
import { corpusKnowledgeBase } from '../orchestrator/testing/corpus-fixture.ts';
import type { SandboxRunner, SandboxRunResult } from './sandbox-runner.ts';
import type { SandboxToolSpec } from './sandbox-tools.ts';
import { type ToolCallRecord, type ToolOutcome, WorkspaceToolbox } from './tools.ts';
import { InMemoryWorkspaceFiles } from './workspace-files.ts';

let kb: KnowledgeBase;
beforeAll(async () => {
  kb = await corpusKnowledgeBase();
});

const files = () =>
  new InMemoryWorkspaceFiles({
    'app.log': '10:00:01 INFO start\n10:02:13 ERROR orders-db pool exhausted (100/100)\n10:02:14 WARN retry\n',
    'conf/values.json': '{ "pool": { "max": 100 } }\n',
  });

describe('the workspace tools', () => {
  it('list_files lists paths, sizes and status', async () => {
    const box = new WorkspaceToolbox({ files: files(), kb });
    const out = await box.call('list_files', {});
    expect(out.ok && out.tool === 'list_files' && out.files.map((f) => f.path)).toEqual(['app.log', 'conf/values.json']);
    expect(out.text).toMatch(/^app\.log\t\d+ bytes\tok/);
  });

  it('read_file refuses paths outside the workspace, a missing file and bad arguments, as values the agent reads', async () => {
    const box = new WorkspaceToolbox({ files: files(), kb });
    for (const [args, why] of [
      [{ path: '../../etc/passwd' }, /leaves the workspace/],
      [{ path: '/etc/passwd' }, /outside the workspace/],
      [{ path: 'missing.log' }, /no file "missing\.log".*list_files/],
      [{ path: 'app.log', offset: 0 }, /offset must be at least 1/],
      [{ path: 'app.log', extra: 1 }, /read_file/],
    ] as const) {
      const out = await box.call('read_file', args);
      expect(out.ok, JSON.stringify(args)).toBe(false);
      expect(out.text).toMatch(why);
    }
    const ok = await box.call('read_file', { path: '/root/app.log', offset: 2, limit: 1 });
    expect(ok.text.split('\n')[0]).toBe('2\t10:02:13 ERROR orders-db pool exhausted (100/100)');
    expect(box.calls.map((c) => c.ok)).toEqual([false, false, false, false, false, true]);
    expect((await box.call('rm_rf', {})).text).toMatch(/no tool "rm_rf"/);
  });

  it('read_file applies the caps it was given (READ_FILE_MAX_LINES)', async () => {
    const box = new WorkspaceToolbox({ files: files(), kb, caps: { maxLines: 1, maxChars: 200_000 } });
    const out = await box.call('read_file', { path: 'app.log' });
    expect(out.ok && out.tool === 'read_file' && out.window.endLine).toBe(1);
    expect(out.text).toMatch(/READ_FILE_MAX_LINES=1.*offset=2/s);
  });

  it('search_files finds lines case-insensitively, in every file or one, and refuses a path outside', async () => {
    const box = new WorkspaceToolbox({ files: files(), kb });
    const all = await box.call('search_files', { pattern: 'POOL' });
    expect(all.ok && all.tool === 'search_files' && all.search.hits.map((h) => `${h.path}:${h.line}`)).toEqual(['app.log:2', 'conf/values.json:1']);
    const one = await box.call('search_files', { pattern: 'pool', path: 'conf' });
    expect(one.ok && one.tool === 'search_files' && one.search.hits.map((h) => h.path)).toEqual(['conf/values.json']);
    expect((await box.call('search_files', { pattern: 'pool', path: '../' })).ok).toBe(false);
    expect((await box.call('search_files', { pattern: 'pool', path: 'nope' })).text).toMatch(/no file or folder "nope"/);
    expect((await box.call('search_files', { pattern: '' })).text).toMatch(/pattern must not be empty/);
  });

  it('search_runbooks goes through the evidence gate: passages for what the library answers, a refusal for what it does not', async () => {
    const box = new WorkspaceToolbox({ files: files(), kb });
    const answered = await box.call('search_runbooks', { query: 'What is the connection pool ceiling for orders-db?' });
    expect(answered.ok && answered.tool === 'search_runbooks' && answered.runbooks.verdict).not.toBe('refused');
    expect(answered.ok && answered.tool === 'search_runbooks' && answered.runbooks.passages.length).toBeGreaterThan(0);
    const refused = await box.call('search_runbooks', { query: 'How do we rotate TLS certificates?' });
    expect(refused.ok && refused.tool === 'search_runbooks' && refused.runbooks).toMatchObject({ verdict: 'refused', passages: [] });
    // S-108: the model is unsure here, and the tool's text says so rather than that the library does not answer.
    expect(refused.ok && refused.tool === 'search_runbooks' && refused.runbooks.refusal).toBe('unsure');
    expect(refused.text).toMatch(/^Not answered: the model is unsure/);
  });
});

describe('a sandboxed tool whose run goes wrong on the host', () => {
  const jq: SandboxToolSpec = {
    name: 'jq',
    description: 'jq',
    parameters: z.strictObject({ filter: z.string(), path: z.string() }),
    invoke: { argv: ['/.tools/jq/run', { arg: 'filter' }, { path: 'path' }] },
  };
  const runnerOf = (run: () => Promise<SandboxRunResult>): SandboxRunner => ({ run });

  it('is a refused call the agent reads and the turn records, without the host error or its path', async () => {
    // The runner's own mkdtemp under a temp dir that is gone or full: it used to reject the whole turn.
    const runner = runnerOf(async () => {
      throw Object.assign(new Error("ENOENT: no such file or directory, mkdtemp '/srv/sandscope-data/tmp/sandscope-ws-XXXXXX'"), { code: 'ENOENT' });
    });
    const seen: [ToolCallRecord, ToolOutcome][] = [];
    const box = new WorkspaceToolbox({ files: files(), kb, sandbox: { runner, tools: [jq] }, onCall: (r, o) => seen.push([r, o]) });
    const out = await box.call('jq', { filter: '.', path: 'conf/values.json' });
    expect(out).toEqual({ ok: false, tool: 'jq', text: 'jq: the sandbox could not run this time; try again.' });
    expect(out.text).not.toMatch(/\/srv|ENOENT|mkdtemp/);
    expect(box.calls).toEqual([{ tool: 'jq', args: { filter: '.', path: 'conf/values.json' }, ok: false, sandboxed: true }]);
    expect(seen).toEqual([[box.calls[0], out]]);
  });

  it('returns the output cut at the cap when the runner killed the tool for passing it, not a failure', async () => {
    const runner = runnerOf(async () => ({ exitCode: null, stdout: 'x'.repeat(10), stderr: '', timedOut: false, truncated: true }));
    const box = new WorkspaceToolbox({ files: files(), kb, sandbox: { runner, tools: [jq] } });
    const out = await box.call('jq', { filter: '.', path: 'conf/values.json' });
    expect(out).toMatchObject({ ok: true, tool: 'sandbox', name: 'jq', text: `${'x'.repeat(10)}\n[output cut at the sandbox output cap; narrow the query]` });
  });
});

describe("a tool call's record", () => {
  it('holds no NUL or unpaired surrogate from the arguments: it is stored in jsonb, which refuses both', async () => {
    const box = new WorkspaceToolbox({ files: files(), kb });
    const out = await box.call('search_files', { pattern: 'orders\u0000db \ud83d' });
    expect(out.ok).toBe(true);
    expect(box.calls[0]!.args).toEqual({ pattern: 'orders\uFFFDdb \uFFFD' });
    // Nested values too (a sandboxed tool's arguments are the model's JSON).
    const nested = await box.call('list_files', { deep: [{ x: '\udc00' }] });
    expect(nested.ok).toBe(false);
    expect(box.calls[1]!.args).toEqual({ deep: [{ x: '\uFFFD' }] });
  });
});

describe("a search's size", () => {
  it("refuses a query or pattern past MAX_TOOL_QUERY_CHARS: the model's text is unbounded and the search is quadratic in it", async () => {
    // A 200,000-character search_runbooks query took 284 s and a 100,000-character pattern 42 s, the event loop held throughout.
    const box = new WorkspaceToolbox({ files: files(), kb });
    const runbooks = await box.call('search_runbooks', { query: 'x'.repeat(4001) });
    expect(runbooks.ok).toBe(false);
    expect(runbooks.text).toBe('search_runbooks: query must be at most 4000 characters; search for the words that matter.');
    const search = await box.call('search_files', { pattern: 'x'.repeat(4001) });
    expect(search.ok).toBe(false);
    expect(search.text).toBe('search_files: pattern must be at most 4000 characters; search for the words that matter.');
    expect((await box.call('search_files', { pattern: 'x'.repeat(4000) })).ok).toBe(true);
  });
});
