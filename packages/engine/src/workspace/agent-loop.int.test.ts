import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { KnowledgeBase } from '../knowledge-base.ts';
import { perMillionTokens } from '../models/pricing.ts';
import { ProviderHealth } from '../models/provider-health.ts';
import { createHttpModel } from '../models/providers.ts';
import type { RouterCandidate } from '../models/router.ts';
import { startStubOpenAIServer, type StubBehaviour, type StubOpenAIServer } from '../models/testing/stub-openai-server.ts';
import { corpusKnowledgeBase } from '../orchestrator/testing/corpus-fixture.ts';
import { answerTurn, type TurnEvent } from './agent-loop.ts';
import type { TranscriptEntry } from './history.ts';
import { INCIDENT_CONFIG, incidentLog } from './testing-incident-files.ts';
import type { SandboxRunner } from './sandbox-runner.ts';
import type { SandboxToolSpec } from './sandbox-tools.ts';
import { WorkspaceToolbox } from './tools.ts';
import { InMemoryWorkspaceFiles } from './workspace-files.ts';

/**
 * The provider path of a turn (issue 10): a tool-calling loop through the
 * router, over the stub OpenAI-compatible server on a real socket (STYLE 12–13).
 */
let kb: KnowledgeBase;
const files = new InMemoryWorkspaceFiles({ 'app.log': incidentLog(), 'values.json': INCIDENT_CONFIG });
const stubs: StubOpenAIServer[] = [];

beforeAll(async () => {
  kb = await corpusKnowledgeBase();
});

afterEach(async () => {
  await Promise.all(stubs.splice(0).map((s) => s.close()));
});

async function provider(
  name: 'groq' | 'gemini',
  script: StubBehaviour[],
  fallback?: StubBehaviour,
): Promise<{ stub: StubOpenAIServer; candidate: RouterCandidate }> {
  const stub = await startStubOpenAIServer({ script, ...(fallback ? { fallback } : {}) });
  stubs.push(stub);
  const pricing = perMillionTokens(1, 2);
  const model = createHttpModel({ kind: 'http', name, baseURL: stub.baseURL, model: `stub-${name}`, apiKey: 'test-key', pricing }, { fetch, timeoutMs: 5_000 });
  return { stub, candidate: { name, model, pricing } };
}

function turn(candidates: RouterCandidate[], options: { message?: string; history?: TranscriptEntry[]; maxSteps?: number; events?: TurnEvent[] } = {}) {
  return answerTurn({
    message: options.message ?? 'Why is checkout getting 502s from orders-db?',
    history: options.history ?? [],
    historyMaxMessages: 40,
    toolbox: new WorkspaceToolbox({ files, kb }),
    kb,
    models: { candidates, health: new ProviderHealth(), budgetUsd: 0.02, maxSteps: options.maxSteps ?? 6 },
    ...(options.events ? { onEvent: (e) => options.events!.push(e) } : {}),
  });
}

const answer = (value: unknown): StubBehaviour => ({ kind: 'json', text: JSON.stringify(value), usage: { promptTokens: 900, completionTokens: 60 } });

describe('a turn with a provider configured: the tool-calling loop', () => {
  it('calls read_file, then answers with a cited range; metrics are the provider usage and the settled cost', async () => {
    const { stub, candidate } = await provider('groq', [
      {
        kind: 'tool-calls',
        calls: [{ name: 'read_file', args: { path: 'app.log', offset: 4310, limit: 10 } }],
        usage: { promptTokens: 400, completionTokens: 25 },
      },
      answer({ claims: [{ text: 'orders-db reported its connection pool exhausted (100/100)', citations: ['app.log:4312-4318'] }], unknown: [] }),
    ]);
    const history: TranscriptEntry[] = [
      { role: 'user', text: 'What changed at 10:00?' },
      { role: 'tool', text: 'search_files 10:00 -> …' },
      { role: 'assistant', text: 'Nothing in the files mentions it.' },
    ];
    const events: TurnEvent[] = [];
    const t = await turn([candidate], { history, events });

    expect(t.mode).toBe('provider');
    expect(t.toolCalls).toEqual([{ tool: 'read_file', args: { path: 'app.log', offset: 4310, limit: 10 }, ok: true }]);
    expect(t.claims).toEqual([
      { text: 'orders-db reported its connection pool exhausted (100/100)', citations: [{ kind: 'file', path: 'app.log', startLine: 4312, endLine: 4318 }] },
    ]);
    expect(t.answer).toBe('orders-db reported its connection pool exhausted (100/100) [app.log:4312-4318]');
    expect(t.notes).toEqual([]);
    // Seed #22: the provider's usage summed over both calls, and what the spend guard settled at $1/$2 per Mtok.
    expect(t.metrics).toMatchObject({ promptTokens: 1300, completionTokens: 85, provider: 'groq' });
    // (the guard books whole nano-dollars, rounding each settlement up)
    expect(t.metrics.costUsd).toBeCloseTo(1300 * 1e-6 + 85 * 2e-6, 8);
    expect(t.metrics.elapsedMs).toBeGreaterThan(0);

    // On the wire: the tools were offered as JSON Schema, the history replayed as text only (seed #17),
    // and the second call carried read_file's numbered lines back to the model.
    const first = stub.requests[0]!.body as { tools: { function: { name: string } }[]; messages: { role: string; content: string }[] };
    expect(first.tools.map((x) => x.function.name)).toEqual(['list_files', 'read_file', 'search_files', 'search_runbooks']);
    expect(first.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(JSON.stringify(first.messages)).not.toContain('search_files 10:00');
    expect(JSON.stringify(stub.requests[1]!.body.messages)).toContain('4312\\t2024-05-01T');
    expect(events.filter((e) => e.type === 'tool')).toHaveLength(1);
  });

  it('drops a claim that cites lines the tools never returned, or states what its lines do not, and says unknown when none stands', async () => {
    const { candidate } = await provider('groq', [
      { kind: 'tool-calls', calls: [{ name: 'search_files', args: { pattern: 'pool exhausted' } }] },
      answer({
        claims: [
          { text: 'checkout returned 502 Bad Gateway', citations: ['app.log:4400'] },
          { text: 'the pool was exhausted at 250/250', citations: ['app.log:4312'] },
          { text: 'the orders-db connection pool was not exhausted', citations: ['app.log:4312'] },
          { text: 'the pool ceiling is 100', citations: ['orders-db#not-returned'] },
          { text: 'someone restarted orders-db', citations: [] },
        ],
        unknown: [],
      }),
    ]);
    const t = await turn([candidate]);
    expect(t.claims).toEqual([]);
    expect(t.notes.join('\n')).toMatch(/app\.log:4400-4400, but the tools never returned line 4400/);
    expect(t.notes.join('\n')).toMatch(/it states 250, which what it cites does not state/);
    expect(t.notes.join('\n')).toMatch(/"the orders-db connection pool was not exhausted".*it says the opposite of what it cites/);
    expect(t.notes.join('\n')).toMatch(/"orders-db#not-returned", which search_runbooks did not return/);
    expect(t.notes.join('\n')).toMatch(/cites nothing the tools returned/);
    expect(t.answer).toBe('Unknown: Nothing the tools returned supports an answer, so it is unknown.');
  });

  it('stops a model that never stops at INVESTIGATION_MAX_STEPS, the last step forbidding tools, and says unknown', async () => {
    const { stub, candidate } = await provider('groq', [], { kind: 'tool-calls', calls: [{ name: 'search_files', args: { pattern: 'orders-db' } }] });
    const t = await turn([candidate], { maxSteps: 3 });
    expect(stub.requests).toHaveLength(3);
    expect(stub.requests[0]!.body.tool_choice).not.toBe('none');
    expect(stub.requests[2]!.body.tool_choice).toBe('none');
    expect(t.claims).toEqual([]);
    expect(t.notes[0]).toMatch(/still calling tools after 3 steps \(INVESTIGATION_MAX_STEPS\)/);
    expect(t.answer).toMatch(/^Unknown: No answer within 3 steps/);
    expect(t.metrics.promptTokens).toBe(300);
  });

  it('falls back to the offline planner, with a note, when every provider fails', async () => {
    const { stub: groq, candidate: a } = await provider('groq', [], { kind: 'status', status: 500 });
    const { stub: gemini, candidate: b } = await provider('gemini', [], { kind: 'status', status: 503 });
    const events: TurnEvent[] = [];
    const t = await turn([a, b], { events });
    expect(groq.requests.length + gemini.requests.length).toBe(2);
    expect(t.mode).toBe('offline');
    expect(t.notes[0]).toMatch(/^Every provider failed \(groq: HTTP 500 .*; gemini: HTTP 503 .*\), so the offline planner answered\.$/);
    expect(t.citations).toContainEqual({ kind: 'file', path: 'app.log', startLine: 4400, endLine: 4400 });
    expect(t.answer).toMatch(/\nNote: Every provider failed/);
    expect(t.metrics).toMatchObject({ provider: 'offline', costUsd: 0 });
    expect(events.some((e) => e.type === 'note')).toBe(true);
  });

  it('bounds a read by what is left of RUN_TOKEN_BUDGET, so the call after reading a large log is still made', async () => {
    // 4,000 lines of about 90 characters: 360,000 characters, under READ_FILE_MAX_LINES but over the budget's reach.
    const big = Array.from({ length: 4000 }, (_, i) => `2024-05-01T10:${String(i % 60).padStart(2, '0')}:00Z worker-${i} heartbeat ok, queue depth ${i}`).join(
      '\n',
    );
    const { stub, candidate } = await provider('groq', [
      { kind: 'tool-calls', calls: [{ name: 'read_file', args: { path: 'big.log' } }], usage: { promptTokens: 1500, completionTokens: 25 } },
      answer({ claims: [{ text: 'worker-1 reported a heartbeat', citations: ['big.log:2-2'] }], unknown: [] }),
    ]);
    const t = await answerTurn({
      message: 'Did worker-1 report a heartbeat?',
      history: [],
      historyMaxMessages: 40,
      toolbox: new WorkspaceToolbox({ files: new InMemoryWorkspaceFiles({ 'big.log': big }), kb }),
      kb,
      models: { candidates: [candidate], health: new ProviderHealth(), budgetUsd: 1, tokenCeiling: 16_000, maxSteps: 6 },
    });
    // Before, the read returned 200,000 characters (READ_FILE_MAX_CHARS), the guard refused the next call and the
    // offline planner answered.
    expect(stub.requests).toHaveLength(2);
    expect(t.mode).toBe('provider');
    expect(t.claims).toHaveLength(1);
    const sent = JSON.stringify(stub.requests[1]!.body.messages);
    expect(sent.length).toBeLessThan(40_000);
    expect(sent).toContain('what is left of the turn’s RUN_TOKEN_BUDGET');
    expect(sent).toContain('To read on, call read_file with path=');
  });

  it('S-244: a sandboxed tool whose every call failed is a note for the person; one the model got to run is not', async () => {
    const jq: SandboxToolSpec = {
      name: 'jq',
      description: 'jq',
      parameters: z.strictObject({ filter: z.string(), path: z.string() }),
      invoke: { argv: ['/.tools/jq/run', { arg: 'filter' }, { path: 'path' }] },
    };
    // The built jq deleted after `tools build`: its run script cannot exec it, whatever the filter.
    const missing: SandboxRunner = {
      async run() {
        return { exitCode: 127, stdout: '', stderr: '/.tools/jq/run: 3: exec: /.tools/jq/bin/jq: not found', timedOut: false, truncated: false };
      },
    };
    const script = (): StubBehaviour[] => [
      { kind: 'tool-calls', calls: [{ name: 'jq', args: { filter: '.pool', path: 'values.json' } }] },
      answer({ claims: [{ text: 'orders-db reported its connection pool exhausted (100/100)', citations: ['app.log:4312-4318'] }], unknown: [] }),
    ];
    const withRunner = async (runner: SandboxRunner) => {
      const { candidate } = await provider('groq', [
        { kind: 'tool-calls', calls: [{ name: 'read_file', args: { path: 'app.log', offset: 4310, limit: 10 } }] },
        ...script(),
      ]);
      const events: TurnEvent[] = [];
      const t = await answerTurn({
        message: 'Why is checkout getting 502s from orders-db?',
        history: [],
        historyMaxMessages: 40,
        toolbox: new WorkspaceToolbox({ files, kb, sandbox: { runner, tools: [jq] } }),
        kb,
        models: { candidates: [candidate], health: new ProviderHealth(), budgetUsd: 0.02, maxSteps: 6 },
        onEvent: (e) => events.push(e),
      });
      return { t, events };
    };
    const broken = await withRunner(missing);
    expect(broken.t.mode).toBe('provider');
    expect(broken.t.toolCalls).toContainEqual({ tool: 'jq', args: { filter: '.pool', path: 'values.json' }, ok: false, sandboxed: true });
    expect(broken.t.notes).toEqual([expect.stringMatching(/^The sandboxed tool jq failed over values\.json \(.*not found\).*`npx sandscope tools build`/)]);
    expect(broken.events).toContainEqual({ type: 'note', text: broken.t.notes[0] });

    const working: SandboxRunner = {
      async run() {
        return { exitCode: 0, stdout: '{"max":100}\n', stderr: '', timedOut: false, truncated: false };
      },
    };
    expect((await withRunner(working)).t.notes).toEqual([]);
  });

  it('with no provider but the offline model, the deterministic planner answers as before', async () => {
    const t = await answerTurn({
      message: 'Why is checkout getting 502s from orders-db?',
      history: [],
      historyMaxMessages: 40,
      toolbox: new WorkspaceToolbox({ files, kb }),
      kb,
    });
    expect(t.mode).toBe('offline');
    expect(t.notes).toEqual([]);
    expect(t.citations).toContainEqual({ kind: 'file', path: 'app.log', startLine: 4312, endLine: 4318 });
  });
});
