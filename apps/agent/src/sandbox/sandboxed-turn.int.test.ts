import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { perMillionTokens, createHttpModel } from '@sandscope/engine/models';
import { startStubOpenAIServer, type StubOpenAIServer, INCIDENT_CONFIG, incidentLog } from '@sandscope/engine/testing';
import { startStore, type Store } from '@sandscope/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { appDepsOf, createApp } from '../http/app.ts';
import { type AgentService, startAgentService } from '../service/compose.ts';
import { probeJail } from './bwrap-runner.ts';
import { TOOL_DECLARATIONS } from './tool-declarations.ts';
import { buildTools } from './tools-build.ts';

/**
 * Seed #21 end to end: the template turns the tools on at start-up, a turn's
 * tool-calling loop (a stub provider) calls log_summary and jq over the
 * uploaded files through the HTTP route, and both run in the jail. Needs
 * bubblewrap like jail.int.test.ts: fails under CI without it, skips elsewhere saying why.
 */
const jail = probeJail();
if (!jail.ok && process.env.CI) throw new Error(`CI must run the sandboxed-turn tests, but ${jail.reason}`);
if (!jail.ok) process.stderr.write(`\nSKIPPED sandboxed-turn.int.test.ts (seed #21): ${jail.reason}\n\n`);

const TOKEN = 'test-token-0123456789abcdef0123456789';
const AUTH = { authorization: `Bearer ${TOKEN}` };

describe.skipIf(!jail.ok)('an investigation turn calling the sandboxed tools (seed #21)', () => {
  let toolsDir: string;
  let store: Store;
  let stub: StubOpenAIServer;
  let agent: AgentService;
  let app: ReturnType<typeof createApp>;

  beforeAll(async () => {
    toolsDir = mkdtempSync(join(tmpdir(), 'sandscope-tools-'));
    buildTools(toolsDir, TOOL_DECLARATIONS);
    store = await startStore({ dataDir: 'memory://' });
    stub = await startStubOpenAIServer();
    const pricing = perMillionTokens(1, 2);
    const model = createHttpModel(
      { kind: 'http', name: 'groq', baseURL: stub.baseURL, model: 'stub-llama', apiKey: 'test-key', pricing },
      { fetch, timeoutMs: 5_000 },
    );
    const parsed = loadConfig(
      { AGENT_TOKEN: TOKEN, IP_SALT: 'salt-for-tests-0123456789', TOOLS_DIR: toolsDir, TOOLS_TEMPLATE: 'apps/agent/tools/templates/log-tools.json' },
      { requireToken: true },
    );
    if (!parsed.ok) throw new Error(parsed.message);
    agent = await startAgentService({ config: parsed.config, store, log: () => {}, candidates: [{ name: 'groq', model, pricing }] });
    app = createApp(appDepsOf(agent));
  }, 120_000);

  afterAll(async () => {
    await agent?.close();
    await stub?.close();
    await store?.close();
    rmSync(toolsDir, { recursive: true, force: true });
  });

  it('says at start-up which tools are offered; the model is offered them, calls them, and reads what they printed', async () => {
    expect(agent.startup.join('\n')).toContain(`sandboxed tools: jq, log_summary (bubblewrap jail, no network, /.tools read-only from ${toolsDir})`);
    const request = (method: string, path: string, body: string, type = 'application/json') =>
      app.request(`/v1/investigations${path}`, { method, headers: { ...AUTH, 'content-type': type }, body });
    const created = await request('POST', '', JSON.stringify({ title: 'checkout 502s' }));
    const { investigation } = (await created.json()) as { investigation: { id: string } };
    expect((await request('PUT', `/${investigation.id}/files/app.log`, incidentLog(), 'text/plain')).status).toBe(201);
    expect((await request('PUT', `/${investigation.id}/files/values.json`, INCIDENT_CONFIG, 'text/plain')).status).toBe(201);

    stub.script(
      { kind: 'tool-calls', calls: [{ name: 'log_summary', args: { path: 'app.log', top: 2 } }], usage: { promptTokens: 300, completionTokens: 20 } },
      {
        kind: 'tool-calls',
        calls: [{ name: 'jq', args: { filter: '.["orders-db"].pool.max', path: 'values.json' } }],
        usage: { promptTokens: 500, completionTokens: 20 },
      },
      {
        kind: 'tool-calls',
        calls: [{ name: 'read_file', args: { path: 'app.log', offset: 4312, limit: 7 } }],
        usage: { promptTokens: 700, completionTokens: 20 },
      },
      {
        kind: 'json',
        text: JSON.stringify({ claims: [{ text: 'orders-db reported its connection pool exhausted', citations: ['app.log:4312-4318'] }], unknown: [] }),
        usage: { promptTokens: 900, completionTokens: 60 },
      },
    );
    const res = await request('POST', `/${investigation.id}/turns`, JSON.stringify({ message: 'When did the errors start?' }));
    const { turn } = (await res.json()) as { turn: { toolCalls: unknown[]; citations: unknown[] } };
    expect(turn.toolCalls).toEqual([
      { tool: 'log_summary', args: { path: 'app.log', top: 2 }, ok: true, sandboxed: true },
      { tool: 'jq', args: { filter: '.["orders-db"].pool.max', path: 'values.json' }, ok: true, sandboxed: true },
      { tool: 'read_file', args: { path: 'app.log', offset: 4312, limit: 7 }, ok: true },
    ]);
    expect(turn.citations).toEqual([{ kind: 'file', path: 'app.log', startLine: 4312, endLine: 4318 }]);

    const offered = (stub.requests[0]!.body as { tools: { function: { name: string } }[] }).tools.map((t) => t.function.name);
    expect(offered).toEqual(['list_files', 'read_file', 'search_files', 'search_runbooks', 'jq', 'log_summary']);
    const toolReply = (i: number) => JSON.stringify((stub.requests[i]!.body as { messages: unknown[] }).messages.at(-1));
    expect(toolReply(1)).toContain('First error: 2024-05-01T11:35:52Z (line 4312)');
    expect(toolReply(1)).toContain('ERROR 8');
    expect(JSON.parse(toolReply(2))).toEqual({ role: 'tool', tool_call_id: 'call_2', content: '100' });
  });

  it('offline (no provider), the planner runs jq over the JSON file the question names and log_summary over the large log, in the jail, and cites their lines', async () => {
    const parsed = loadConfig(
      { AGENT_TOKEN: TOKEN, IP_SALT: 'salt-for-tests-0123456789', TOOLS_DIR: toolsDir, TOOLS_TEMPLATE: 'apps/agent/tools/templates/log-tools.json' },
      { requireToken: true },
    );
    if (!parsed.ok) throw new Error(parsed.message);
    const offline = await startAgentService({ config: parsed.config, store, log: () => {} });
    try {
      const offlineApp = createApp(appDepsOf(offline));
      const request = (method: string, path: string, body: string, type = 'application/json') =>
        offlineApp.request(`/v1/investigations${path}`, { method, headers: { ...AUTH, 'content-type': type }, body });
      const { investigation } = (await (await request('POST', '', JSON.stringify({ title: 'offline sandbox' }))).json()) as { investigation: { id: string } };
      expect((await request('PUT', `/${investigation.id}/files/app.log`, incidentLog(), 'text/plain')).status).toBe(201);
      expect((await request('PUT', `/${investigation.id}/files/values.json`, INCIDENT_CONFIG, 'text/plain')).status).toBe(201);
      const before = stub.requests.length;
      type Turn = {
        mode: string;
        toolCalls: { tool: string; ok: boolean; sandboxed?: boolean }[];
        claims: { text: string; citations: unknown[] }[];
        notes: string[];
      };
      const ask = async (message: string) =>
        ((await (await request('POST', `/${investigation.id}/turns`, JSON.stringify({ message }))).json()) as { turn: Turn }).turn;
      const turn = await ask('What is the pool max in values.json?');
      expect(turn.mode).toBe('offline');
      expect(stub.requests.length).toBe(before);
      // S-242: a setting asked of another file gets no summary of app.log.
      expect(turn.toolCalls.filter((c) => c.sandboxed)).toEqual([expect.objectContaining({ tool: 'jq', ok: true, sandboxed: true })]);
      expect(turn.claims).toContainEqual({
        text: 'values.json sets orders-db.pool.max = 100 (read with jq, run in the sandbox)',
        citations: [{ kind: 'file', path: 'values.json', startLine: 2, endLine: 2 }],
      });
      expect(turn.notes).toEqual([]);
      const logTurn = await ask('Any errors in app.log?');
      expect(logTurn.toolCalls.filter((c) => c.sandboxed)).toEqual([expect.objectContaining({ tool: 'log_summary', ok: true, sandboxed: true })]);
      const summary = logTurn.claims.find((c) => c.text.startsWith('log_summary (run in the sandbox) over app.log'));
      expect(summary?.text).toMatch(/5000 lines \(ERROR 8, INFO 4992\): its first error is line 4312 \(2024-05-01T11:35:52Z\)/);
      expect(summary?.citations).toEqual([
        { kind: 'file', path: 'app.log', startLine: 4312, endLine: 4312 },
        { kind: 'file', path: 'app.log', startLine: 4400, endLine: 4400 },
      ]);
      // S-243: the built jq deleted after start-up; the jailed call fails, and the turn says so and what to do.
      rmSync(join(toolsDir, 'jq', 'bin', 'jq'));
      const broken = await ask('What is the pool max in values.json?');
      expect(broken.toolCalls.filter((c) => c.sandboxed)).toEqual([expect.objectContaining({ tool: 'jq', ok: false, sandboxed: true })]);
      expect(broken.notes).toEqual([
        expect.stringMatching(/^The sandboxed tool jq failed over values\.json \(jq failed \(exit \d+\): .*`npx sandscope tools build` again/),
      ]);
    } finally {
      await offline.close();
    }
  });
});
