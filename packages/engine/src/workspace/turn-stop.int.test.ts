import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { KnowledgeBase } from '../knowledge-base.ts';
import { perMillionTokens } from '../models/pricing.ts';
import { ProviderHealth } from '../models/provider-health.ts';
import { createHttpModel } from '../models/providers.ts';
import { startStubOpenAIServer, type StubOpenAIServer } from '../models/testing/stub-openai-server.ts';
import { corpusKnowledgeBase } from '../orchestrator/testing/corpus-fixture.ts';
import { answerTurn, type TurnEvent } from './agent-loop.ts';
import type { SandboxRunRequest, SandboxRunResult } from './sandbox-runner.ts';
import type { SandboxToolSpec } from './sandbox-tools.ts';
import { WorkspaceToolbox } from './tools.ts';
import { InMemoryWorkspaceFiles } from './workspace-files.ts';

/**
 * S-269: a turn can be stopped from outside (the agent shutting down). Its model call carries the signal, it rejects
 * with the signal's reason — never falling back to the offline planner, which would go on reading from a store about to
 * close — and a tool call after the stop, or a sandboxed tool running at it, ends the turn too. The provider is the stub
 * OpenAI-compatible server on a real socket, answering nothing (STYLE 12–13).
 */
let kb: KnowledgeBase;
const stubs: StubOpenAIServer[] = [];
const files = () => new InMemoryWorkspaceFiles({ 'app.log': '2024-05-14T03:12:01Z ERROR upstream timeout to payments-api\n', 'values.json': '{"a":1}\n' });

beforeAll(async () => {
  kb = await corpusKnowledgeBase();
});
afterEach(async () => {
  await Promise.all(stubs.splice(0).map((s) => s.close()));
});

class Stopped extends Error {}

describe('a turn stopped from outside (S-269)', () => {
  it('with a provider: its model call is cut, and the turn rejects with the reason at once, with no fallback to the offline planner', async () => {
    const stub = await startStubOpenAIServer({ fallback: { kind: 'hang' } });
    stubs.push(stub);
    const pricing = perMillionTokens(1, 2);
    const model = createHttpModel(
      { kind: 'http', name: 'groq', baseURL: stub.baseURL, model: 'stub', apiKey: 'test-key', pricing },
      { fetch, timeoutMs: 30_000 },
    );
    const stop = new AbortController();
    const events: TurnEvent[] = [];
    const turn = answerTurn({
      message: 'why did payments-api time out?',
      history: [],
      historyMaxMessages: 40,
      toolbox: new WorkspaceToolbox({ files: files(), kb, signal: stop.signal }),
      kb,
      models: { candidates: [{ name: 'groq', model, pricing }], health: new ProviderHealth(), budgetUsd: 0.02, maxSteps: 6 },
      onEvent: (e) => events.push(e),
      signal: stop.signal,
    });
    const outcome = turn.then(
      () => 'answered',
      (error: unknown) => error,
    );
    while (stub.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    const reason = new Stopped('the replica is shutting down');
    const stoppedAt = Date.now();
    stop.abort(reason);
    expect(await outcome).toBe(reason);
    expect(Date.now() - stoppedAt).toBeLessThan(2_000);
    // No fallback: the offline planner never ran a tool, and no note says it answered.
    expect(events.filter((e) => e.type === 'tool' || e.type === 'note')).toEqual([]);
  }, 30_000);

  it('offline: a turn stopped before it starts reads nothing', async () => {
    const stop = new AbortController();
    const reason = new Stopped('stopped');
    stop.abort(reason);
    const toolbox = new WorkspaceToolbox({ files: files(), kb, signal: stop.signal });
    await expect(answerTurn({ message: 'why 502?', history: [], historyMaxMessages: 40, toolbox, kb, signal: stop.signal })).rejects.toBe(reason);
    expect(toolbox.calls).toEqual([]);
  });

  it('a sandboxed tool running when the turn stops is told to stop, and the call ends the turn rather than reading as refused', async () => {
    const jq: SandboxToolSpec = {
      name: 'jq',
      description: 'jq',
      parameters: z.strictObject({ filter: z.string(), path: z.string() }),
      invoke: { argv: ['/.tools/jq/run', { arg: 'filter' }, { path: 'path' }] },
    };
    let seen: AbortSignal | undefined;
    // A runner that kills its tool when told, as the bubblewrap runner does: the run ends, killed, no exit code.
    const runner = {
      run: (request: SandboxRunRequest) =>
        new Promise<SandboxRunResult>((resolve) => {
          seen = request.signal;
          request.signal?.addEventListener('abort', () => resolve({ exitCode: null, stdout: '', stderr: '', timedOut: false, truncated: false }));
        }),
    };
    const stop = new AbortController();
    const box = new WorkspaceToolbox({ files: files(), kb, sandbox: { runner, tools: [jq] }, signal: stop.signal });
    const call = box.call('jq', { filter: '.', path: 'values.json' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(seen).toBe(stop.signal);
    const reason = new Stopped('stopped');
    stop.abort(reason);
    await expect(call).rejects.toBe(reason);
    await expect(box.call('list_files', {})).rejects.toBe(reason);
  });
});
