import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { KnowledgeBase } from '../knowledge-base.ts';
import type { SandboxRunner, SandboxRunRequest } from './sandbox-runner.ts';
import type { SandboxToolSpec } from './sandbox-tools.ts';
import { WorkspaceToolbox } from './tools.ts';
import { InMemoryWorkspaceFiles } from './workspace-files.ts';

const kb = {} as KnowledgeBase; // never consulted: no runbook tool is called here
const files = () => new InMemoryWorkspaceFiles({ 'app.json': '{"level":"error"}\n' });

const jq: SandboxToolSpec = {
  name: 'jq',
  description: 'jq over a JSON file',
  parameters: z.strictObject({ filter: z.string().min(1, 'must not be empty'), path: z.string() }),
  invoke: { argv: ['/.tools/jq/run', { arg: 'filter' }, { path: 'path' }] },
};

/** Records what it was asked to run and answers as told: the engine's side of the contract, no jail. */
class ScriptedRunner implements SandboxRunner {
  readonly requests: SandboxRunRequest[] = [];
  constructor(private readonly exitCode = 0) {}
  async run(request: SandboxRunRequest) {
    this.requests.push(request);
    return { exitCode: this.exitCode, stdout: 'out\n', stderr: this.exitCode === 0 ? '' : 'jq: error: syntax', timedOut: false, truncated: false };
  }
}

describe('sandboxed tools in the workspace toolbox (seed #21)', () => {
  it('offers them beside the workspace tools and runs the declared argv, the path resolved inside the workspace', async () => {
    const runner = new ScriptedRunner();
    const box = new WorkspaceToolbox({ files: files(), kb, sandbox: { runner, tools: [jq] } });
    expect(box.tools().map((t) => t.name)).toEqual(['list_files', 'read_file', 'search_files', 'search_runbooks', 'jq']);
    const out = await box.call('jq', { filter: '.level', path: '/root/app.json' });
    expect(out).toMatchObject({ ok: true, tool: 'sandbox', name: 'jq', text: 'out' });
    expect(runner.requests[0]?.argv).toEqual(['/.tools/jq/run', '.level', './app.json']);
    expect(box.calls).toEqual([{ tool: 'jq', args: { filter: '.level', path: '/root/app.json' }, ok: true, sandboxed: true }]);
  });

  it("refuses a path escape and bad arguments before anything runs, and a failed run is a value with the tool's stderr", async () => {
    const runner = new ScriptedRunner();
    const box = new WorkspaceToolbox({ files: files(), kb, sandbox: { runner, tools: [jq] } });
    expect((await box.call('jq', { filter: '.', path: '../../etc/passwd' })).text).toMatch(/^jq: path: .*leaves the workspace/);
    expect((await box.call('jq', { filter: '.', path: '/etc/passwd' })).text).toMatch(/outside the workspace/);
    expect((await box.call('jq', { filter: '', path: 'app.json' })).text).toMatch(/filter must not be empty/);
    expect(runner.requests).toEqual([]);
    const failing = new WorkspaceToolbox({ files: files(), kb, sandbox: { runner: new ScriptedRunner(5), tools: [jq] } });
    expect(await failing.call('jq', { filter: '.[', path: 'app.json' })).toMatchObject({ ok: false, text: 'jq failed (exit 5): jq: error: syntax' });
  });

  it('where there is no jail, offers none and says why when one is asked for', async () => {
    const box = new WorkspaceToolbox({ files: files(), kb, sandbox: { unavailable: 'bubblewrap (bwrap) is not installed.' } });
    expect(box.tools().map((t) => t.name)).not.toContain('jq');
    const out = await box.call('jq', { filter: '.', path: 'app.json' });
    expect(out.ok).toBe(false);
    expect(out.text).toMatch(/no tool "jq".*Sandboxed tools are not offered here: bubblewrap \(bwrap\) is not installed\./);
  });
});
