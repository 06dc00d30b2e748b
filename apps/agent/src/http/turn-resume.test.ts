import { API_ERRORS, apiErrorBodySchema } from '@sandscope/api/errors';
import { perMillionTokens } from '@sandscope/engine/models';
import { createHttpModel } from '@sandscope/engine/models';
import { startStubOpenAIServer, type StubOpenAIServer } from '@sandscope/engine/testing';
import { incidentLog } from '@sandscope/engine/testing';
import { appendInvestigationMessage, startStore, type Store } from '@sandscope/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { type AgentService, startAgentService } from '../service/compose.ts';
import { appDepsOf, createApp } from './app.ts';
import { listen, type Listening } from './listen.ts';
import { readSseEvents } from './testing/sse-events.ts';

/**
 * Investigation turns resumable with Last-Event-ID, as runs are (run-resume.test.ts),
 * over real sockets because a dropped connection is the point. Two agent
 * services on one database: a turn streamed from A is read for two events,
 * the connection dropped, and resumed on B — which replays the stored events
 * after the id, follows the turn while A is still answering, and ends at its
 * result, with no gap and no duplicate against what a full replay gives.
 */
const TOKEN = 'turn-resume-token-0123456789abcdef';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const JSON_AUTH = { ...AUTH, 'content-type': 'application/json' };

describe('an investigation turn resumed on another replica with Last-Event-ID', () => {
  let store: Store;
  let stub: StubOpenAIServer;
  const agents: AgentService[] = [];
  const servers: Listening[] = [];

  beforeAll(async () => {
    store = await startStore({ dataDir: 'memory://' });
    stub = await startStubOpenAIServer();
    const pricing = perMillionTokens(1, 2);
    const model = createHttpModel(
      { kind: 'http', name: 'groq', baseURL: stub.baseURL, model: 'stub-llama', apiKey: 'test-key', pricing },
      { fetch, timeoutMs: 10_000 },
    );
    const parsed = loadConfig({ AGENT_TOKEN: TOKEN, IP_SALT: 'salt-for-tests-0123456789' }, { requireToken: true });
    if (!parsed.ok) throw new Error(parsed.message);
    agents.push(await startAgentService({ config: parsed.config, store, log: () => {}, candidates: [{ name: 'groq', model, pricing }] }));
    agents.push(await startAgentService({ config: parsed.config, store, log: () => {} }));
    for (const agent of agents) servers.push(await listen(createApp(appDepsOf(agent)), { port: 0, host: '127.0.0.1' }));
  }, 120_000);

  afterAll(async () => {
    for (const server of servers) await server.close(1_000);
    for (const agent of agents) await agent.close();
    await stub?.close();
    await store?.close();
  });

  async function investigation(base: string): Promise<string> {
    const created = await fetch(`${base}/v1/investigations`, { method: 'POST', headers: JSON_AUTH, body: JSON.stringify({ title: 'resumed turn' }) });
    const { investigation } = (await created.json()) as { investigation: { id: string } };
    const put = await fetch(`${base}/v1/investigations/${investigation.id}/files/app.log`, {
      method: 'PUT',
      headers: { ...AUTH, 'content-type': 'text/plain' },
      body: incidentLog(),
    });
    expect(put.status).toBe(201);
    return investigation.id;
  }

  it('reads 2 events on A, resumes on B while A is still answering, and gets the rest without gaps or duplicates', async () => {
    const [a, b] = servers as [Listening, Listening];
    const id = await investigation(a.url);
    stub.script(
      {
        kind: 'tool-calls',
        calls: [{ name: 'read_file', args: { path: 'app.log', offset: 4310, limit: 10 } }],
        usage: { promptTokens: 400, completionTokens: 25 },
      },
      // The answer comes late, so the turn is still going when B picks it up.
      {
        kind: 'after',
        ms: 1_500,
        // biome-ignore lint/suspicious/noThenProperty: the stub provider's delayed reply names what it then sends; nothing awaits this object
        then: {
          kind: 'json',
          text: JSON.stringify({ claims: [{ text: 'orders-db reported its pool exhausted', citations: ['app.log:4312-4318'] }], unknown: [] }),
          usage: { promptTokens: 900, completionTokens: 60 },
        },
      },
    );
    const abort = new AbortController();
    const started = await fetch(`${a.url}/v1/investigations/${id}/turns`, {
      method: 'POST',
      headers: { ...JSON_AUTH, accept: 'text/event-stream' },
      body: JSON.stringify({ message: 'Why is checkout getting 502s?' }),
      signal: abort.signal,
    });
    expect(started.status).toBe(200);
    const firstTwo = await readSseEvents(started.body!, 2);
    abort.abort();
    expect(firstTwo.map((e) => [e.event, e.id])).toEqual([
      ['provider', '1'],
      ['tool', '2'],
    ]);
    const turnId = (firstTwo[0]!.data as { turnId: number }).turnId;
    expect(firstTwo.every((e) => (e.data as { turnId: number }).turnId === turnId && (e.data as { investigationId: string }).investigationId === id)).toBe(
      true,
    );

    const resumed = await fetch(`${b.url}/v1/investigations/${id}/turns/${turnId}/events`, { headers: { ...AUTH, 'last-event-id': '2' } });
    expect(resumed.status).toBe(200);
    expect(resumed.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const rest = await readSseEvents(resumed.body!);
    expect(rest.map((e) => [e.event, e.id])).toEqual([
      ['provider', '3'],
      ['result', '4'],
    ]);
    const { turn } = rest[1]!.data as { turn: { turnId: number; [key: string]: unknown } };
    expect(turn).toMatchObject({ investigationId: id, turnId, mode: 'provider' });
    expect(turn.citations).toEqual([{ kind: 'file', path: 'app.log', startLine: 4312, endLine: 4318 }]);

    // A replay from the start is the same events, in the same order, with the same ids and data.
    const replay = await readSseEvents((await fetch(`${b.url}/v1/investigations/${id}/turns/${turnId}/events`, { headers: AUTH })).body!);
    expect(replay).toEqual([...firstTwo, ...rest]);
    const detail = (await (await fetch(`${b.url}/v1/investigations/${id}`, { headers: AUTH })).json()) as { messages: { id: number; role: string }[] };
    expect(detail.messages.map((m) => [m.id, m.role])).toEqual([
      [turnId, 'user'],
      [turn.messageId, 'assistant'],
    ]);
  });

  it('a JSON turn is replayable too; an unknown turn is a 404, a bad id a 400, a turn left without an answer ends interrupted', async () => {
    const [, b] = servers as [Listening, Listening];
    const id = await investigation(b.url);
    const asked = await fetch(`${b.url}/v1/investigations/${id}/turns`, {
      method: 'POST',
      headers: JSON_AUTH,
      body: JSON.stringify({ message: 'Why is checkout getting 502s from orders-db?' }),
    });
    const { turn } = (await asked.json()) as { turn: { turnId: number; answer: string } };
    const replay = await readSseEvents((await fetch(`${b.url}/v1/investigations/${id}/turns/${turn.turnId}/events`, { headers: AUTH })).body!);
    expect(replay.at(-1)).toMatchObject({ event: 'result', data: { turn: { turnId: turn.turnId, answer: turn.answer } } });
    expect(replay.map((e) => Number(e.id))).toEqual(replay.map((_, i) => i + 1));

    expect((await fetch(`${b.url}/v1/investigations/${id}/turns/999999/events`, { headers: AUTH })).status).toBe(404);
    expect((await fetch(`${b.url}/v1/investigations/${id}/turns/${turn.turnId}/events`, { headers: { ...AUTH, 'last-event-id': 'abc' } })).status).toBe(400);

    // A turn whose process stopped before it answered (only its message stored, long ago): the stream says so and ends.
    const orphan = await appendInvestigationMessage(store.db, id, { role: 'user', text: 'and when did it start?' });
    await store.db.query("update investigation_message set created_at = now() - interval '1 hour' where id = $1", [orphan.id]);
    const ended = await readSseEvents((await fetch(`${b.url}/v1/investigations/${id}/turns/${orphan.id}/events`, { headers: AUTH })).body!);
    expect(ended).toEqual([
      { event: 'error', data: { error: { code: 'interrupted', message: expect.stringMatching(/stopped without an answer.*ask again/) } } },
    ]);
    // S-212: `interrupted` was not in the error table, so a client parsing error bodies with the contract's schema (the
    // website does) could not read this event; it is a code of the one vocabulary, its message ending with its remedy.
    const { error } = apiErrorBodySchema.parse(ended[0]!.data);
    expect(error.message).toBe(`Turn ${orphan.id} had no event for 600 s and no answer. ${API_ERRORS.interrupted.remedy}`);
  });
});
