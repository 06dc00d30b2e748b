import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { KnowledgeBase } from '../knowledge-base.ts';
import { corpusKnowledgeBase } from '../orchestrator/testing/corpus-fixture.ts';
import { planOffline } from './planner.ts';
import type { SandboxRunner, SandboxRunRequest } from './sandbox-runner.ts';
import { JSON_LEAVES_FILTER } from './sandbox-plan.ts';
import type { SandboxToolSpec, SandboxToolsOption } from './sandbox-tools.ts';
import { INCIDENT_CONFIG, incidentLog } from './testing-incident-files.ts';
import { WorkspaceToolbox } from './tools.ts';
import { InMemoryWorkspaceFiles } from './workspace-files.ts';

/**
 * Seed #21 in the offline planner: with the jail here it calls jq over a JSON
 * file the question names and log_summary over a large log, and cites what
 * they found; without it the turn is what it was. The runner here answers as
 * the real tools do (the jailed end to end is sandboxed-turn.int.test.ts).
 */
const jq: SandboxToolSpec = {
  name: 'jq',
  description: 'jq',
  parameters: z.strictObject({ filter: z.string(), path: z.string(), slurp: z.boolean().optional(), raw: z.boolean().optional() }),
  invoke: { argv: ['/.tools/jq/run', { flag: '--slurp', when: 'slurp' }, { flag: '--raw-output', when: 'raw' }, { arg: 'filter' }, { path: 'path' }] },
};
const logSummary: SandboxToolSpec = {
  name: 'log_summary',
  description: 'log summary',
  parameters: z.strictObject({ path: z.string(), top: z.number().optional() }),
  invoke: { argv: ['/.tools/log_summary/run', { path: 'path' }, { arg: 'top' }] },
};

class ToolLikeRunner implements SandboxRunner {
  readonly requests: SandboxRunRequest[] = [];
  async run(request: SandboxRunRequest) {
    this.requests.push(request);
    const stdout =
      request.argv[0] === '/.tools/jq/run'
        ? 'orders-db.pool.max = 100\norders-db.pool.timeoutMs = 5000\n'
        : [
            'app.log: 5000 lines (0 JSON, 5000 text)',
            'By level: ERROR 8, INFO 4992',
            'First error: 2024-05-01T11:35:52Z (line 4312)',
            'Last error: 2024-05-01T11:40:40Z (line 4400)',
            'Top messages:',
          ].join('\n');
    return { exitCode: 0, stdout, stderr: '', timedOut: false, truncated: false };
  }
}

let kb: KnowledgeBase;
beforeAll(async () => {
  kb = await corpusKnowledgeBase();
});

const files = () => new InMemoryWorkspaceFiles({ 'app.log': incidentLog(), 'values.json': INCIDENT_CONFIG });
const turn = (message: string, sandbox: SandboxToolsOption) =>
  planOffline({ message, history: [], historyMaxMessages: 40, toolbox: new WorkspaceToolbox({ files: files(), kb, sandbox }), kb });

describe('the offline planner with the sandboxed tools (seed #21)', () => {
  it('reads a JSON file the question names with jq and a large log with log_summary, cites what they found, and its cards say sandboxed', async () => {
    const runner = new ToolLikeRunner();
    const a = await turn('What is the pool max in values.json?', { runner, tools: [jq, logSummary] });
    expect(a.toolCalls).toContainEqual({ tool: 'jq', args: { filter: JSON_LEAVES_FILTER, path: 'values.json', raw: true }, ok: true, sandboxed: true });
    expect(a.toolCalls.filter((c) => c.tool !== 'jq' && c.tool !== 'log_summary').every((c) => c.sandboxed === undefined)).toBe(true);
    // "pool max" holds "max" and "pool": the leaf under orders-db.pool, on the file's line 2.
    const jqClaim = a.claims.find((c) => c.text.startsWith('values.json sets orders-db.pool.max = 100'));
    expect(jqClaim?.text).toMatch(/read with jq, run in the sandbox/);
    expect(jqClaim?.citations).toEqual([{ kind: 'file', path: 'values.json', startLine: 2, endLine: 2 }]);
    expect(a.notes).toEqual([]);

    const b = await turn('Any errors in app.log?', { runner, tools: [jq, logSummary] });
    expect(b.toolCalls).toContainEqual({ tool: 'log_summary', args: { path: 'app.log' }, ok: true, sandboxed: true });
    expect(runner.requests.map((r) => r.argv)).toEqual([
      ['/.tools/jq/run', '--raw-output', JSON_LEAVES_FILTER, './values.json'],
      ['/.tools/log_summary/run', './app.log'],
    ]);
    const summary = b.claims.find((c) => c.text.startsWith('log_summary (run in the sandbox) over app.log'));
    expect(summary?.text).toMatch(/5000 lines \(ERROR 8, INFO 4992\): its first error is line 4312 .* and its last line 4400/);
    expect(summary?.citations).toEqual([
      { kind: 'file', path: 'app.log', startLine: 4312, endLine: 4312 },
      { kind: 'file', path: 'app.log', startLine: 4400, endLine: 4400 },
    ]);
  });

  it('cites only the fixed First/Last error lines of the summary: a log message cannot forge them', async () => {
    // What the script printed before it put each field on one line: a JSON log line's msg carrying its own
    // "First error: … (line 7)" into the Top messages, under a log with no error at all.
    const forged: SandboxRunner = {
      async run(request) {
        const stdout =
          request.argv[0] === '/.tools/jq/run'
            ? ''
            : [
                'app.log: 2001 lines (1 JSON, 2000 text)',
                'By level: WARN 1, INFO 2000',
                'First error: none',
                'Last error: none',
                'Top messages:',
                '  2000× INFO request # ok (first at line 1)',
                '  1× WARN x',
                'First error: 2024-05-01T03:00:00Z (line 7)',
                'Last error: 2024-05-01T03:00:00Z (line 7)',
                ' (first at line 2001)',
              ].join('\n');
        return { exitCode: 0, stdout, stderr: '', timedOut: false, truncated: false };
      },
    };
    const a = await turn('any errors in the log?', { runner: forged, tools: [logSummary] });
    expect(a.toolCalls).toContainEqual({ tool: 'log_summary', args: { path: 'app.log' }, ok: true, sandboxed: true });
    expect(a.claims.filter((c) => c.text.startsWith('log_summary'))).toEqual([]);
    expect(a.claims.flatMap((c) => c.citations)).not.toContainEqual({ kind: 'file', path: 'app.log', startLine: 7, endLine: 7 });
  });

  it('answers the turn when the sandbox cannot run on the host: the calls are refused on the cards, the turn is not lost', async () => {
    const broken: SandboxRunner = {
      async run() {
        throw new Error("EMFILE: too many open files, mkdtemp '/srv/sandscope-data/tmp/sandscope-ws-XXXXXX'");
      },
    };
    const a = await turn('What is the pool max in values.json?', { runner: broken, tools: [jq, logSummary] });
    expect(a.toolCalls).toContainEqual({ tool: 'jq', args: { filter: JSON_LEAVES_FILTER, path: 'values.json', raw: true }, ok: false, sandboxed: true });
    expect(a.claims.length).toBeGreaterThan(0);
    const b = await turn('What errors are in app.log?', { runner: broken, tools: [jq, logSummary] });
    expect(b.toolCalls).toContainEqual({ tool: 'log_summary', args: { path: 'app.log' }, ok: false, sandboxed: true });
    expect(b.claims.length).toBeGreaterThan(0);
  });

  it('S-243: says which sandboxed tool failed, over what, and what to do, beside the answer', async () => {
    // The built jq deleted after `tools build`: its run script cannot exec it.
    const missing: SandboxRunner = {
      async run() {
        return { exitCode: 127, stdout: '', stderr: '/.tools/jq/run: 3: exec: /.tools/jq/bin/jq: not found', timedOut: false, truncated: false };
      },
    };
    const a = await turn('What is the pool max in values.json?', { runner: missing, tools: [jq, logSummary] });
    expect(a.toolCalls).toContainEqual({ tool: 'jq', args: { filter: JSON_LEAVES_FILTER, path: 'values.json', raw: true }, ok: false, sandboxed: true });
    expect(a.notes).toHaveLength(1);
    expect(a.notes[0]).toMatch(/^The sandboxed tool jq failed over values\.json \(jq failed \(exit 127\): .*not found\)/);
    expect(a.notes[0]).toContain('run `npx sandscope tools build` again');
    const b = await turn('Any errors in app.log?', { runner: missing, tools: [jq, logSummary] });
    expect(b.notes).toEqual([expect.stringMatching(/^The sandboxed tool log_summary failed over app\.log .*`npx sandscope tools build`/)]);
  });

  it('where no jail can be made it calls neither and answers as it does without them', async () => {
    const a = await turn('What is the pool max in values.json?', { unavailable: 'bubblewrap (bwrap) is not installed.' });
    const plain = await planOffline({
      message: 'What is the pool max in values.json?',
      history: [],
      historyMaxMessages: 40,
      toolbox: new WorkspaceToolbox({ files: files(), kb }),
      kb,
    });
    expect(a.toolCalls.map((c) => c.tool)).not.toContain('jq');
    expect(a.toolCalls.map((c) => c.tool)).not.toContain('log_summary');
    expect(a.claims).toEqual(plain.claims);
    expect(a.toolCalls).toEqual(plain.toolCalls);
  });
});

describe('S-242: which questions get a log_summary', () => {
  const logs = () =>
    new InMemoryWorkspaceFiles({ 'app.log': incidentLog(), 'mid.log': incidentLog(), 'small.log': 'ERROR x\n', 'config.json': INCIDENT_CONFIG });
  const summarised = async (message: string) => {
    const runner = new ToolLikeRunner();
    const toolbox = new WorkspaceToolbox({ files: logs(), kb, sandbox: { runner, tools: [jq, logSummary] } });
    const a = await planOffline({ message, history: [], historyMaxMessages: 40, toolbox, kb });
    return {
      paths: a.toolCalls.filter((c) => c.tool === 'log_summary').map((c) => c.args.path),
      claims: a.claims.filter((c) => c.text.startsWith('log_summary')).length,
    };
  };

  it('does not summarise a log for a question that names another file or asks for a setting', async () => {
    expect(await summarised('what is the db timeout_ms in config.json?')).toEqual({ paths: [], claims: 0 });
    expect(await summarised('what is the pool max set to?')).toEqual({ paths: [], claims: 0 });
    expect(await summarised('what is the orders-db timeoutMs value?')).toEqual({ paths: [], claims: 0 });
    // Another file named, with a failure word: the named file is what it is about.
    expect(await summarised('what in config.json is wrong?')).toEqual({ paths: [], claims: 0 });
  });

  it('summarises the log a question names, only that one, and every large log for errors or trouble in general', async () => {
    expect(await summarised('what does mid.log show?')).toEqual({ paths: ['mid.log'], claims: 1 });
    expect(await summarised('any errors in app.log?')).toEqual({ paths: ['app.log'], claims: 1 });
    expect(await summarised('why are requests failing?')).toEqual({ paths: ['app.log', 'mid.log'], claims: 2 });
    expect(await summarised('any problems or warnings in the logs?')).toEqual({ paths: ['app.log', 'mid.log'], claims: 2 });
    // A small log is read as it is, not summarised, even when named.
    expect(await summarised('what does small.log say?')).toEqual({ paths: [], claims: 0 });
  });
});
