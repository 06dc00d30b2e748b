import { startStubOpenAIServer, type StubOpenAIServer } from '@sandscope/engine/testing';
import { type Database, openDatabase, StoreError } from '@sandscope/store';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedInvestigations, stubProviderModel } from './testing/scripted-investigations.ts';
import { parseSse, type SseEvent } from './testing/sse-events.ts';

/**
 * A turn's events are stored as they are streamed, so a client that drops
 * resumes from the store (GET …/turns/:turnId/events). Each event was sent
 * before its write had happened, and the writes were one promise chain: once
 * one write failed, every later one — the turn's `result` or `error` included —
 * was skipped. The answer was already stored, yet the JSON route answered 500,
 * the live stream showed events the store never held, and a resumed stream
 * waited for an end that was never stored (TURN_STALE_MS, ten minutes).
 * Driven in-process over PGlite, the provider a stub OpenAI-compatible server
 * (STYLE 12–13); the store's refusal is a database wrapper that fails writes of
 * turn events on cue.
 */
let stub: StubOpenAIServer;
let investigations: Awaited<ReturnType<typeof startScriptedInvestigations>>;
/** The type of turn event whose next insert fails, as a store that refuses or loses one would; null: none. */
let failEventWrite: string | null = null;

function failingEventWrites(inner: Database): Database {
  const query: Database['query'] = (sql, params) => {
    if (failEventWrite !== null && /^\s*insert into investigation_turn_event/i.test(sql) && params?.[3] === failEventWrite) {
      failEventWrite = null;
      return Promise.reject(new StoreError('database_unreachable', 'The database is unreachable (a failed turn-event write).'));
    }
    return inner.query(sql, params);
  };
  return {
    dialect: inner.dialect,
    description: inner.description,
    query,
    exec: (sql) => inner.exec(sql),
    transaction: (fn) => inner.transaction(fn),
    holdConnection: () => inner.holdConnection(),
    close: () => inner.close(),
  };
}

beforeAll(async () => {
  stub = await startStubOpenAIServer();
  const model = stubProviderModel(stub);
  investigations = await startScriptedInvestigations(model, { database: failingEventWrites(await openDatabase({ dataDir: 'memory://' })) });
}, 120_000);

afterAll(async () => {
  await investigations?.close();
  await stub?.close();
});

beforeEach(() => {
  failEventWrite = null;
});

const call = (method: string, path: string, body?: unknown, o?: { stream?: boolean }) => investigations.call(method, path, body, o);

async function investigation(): Promise<string> {
  const { investigation } = (await (await call('POST', '', { title: 'turn events' })).json()) as { investigation: { id: string } };
  return investigation.id;
}

/** The stored events of a turn, as a client resuming from the start reads them (ended by `result` or `error`, or by the test's wait). */
async function replay(id: string, turnId: number): Promise<SseEvent[]> {
  const res = await call('GET', `/${id}/turns/${turnId}/events`);
  expect(res.status).toBe(200);
  return parseSse(await res.text());
}

async function messages(id: string): Promise<{ role: string; text: string }[]> {
  return ((await (await call('GET', `/${id}`)).json()) as { messages: { role: string; text: string }[] }).messages;
}

const ANSWER = '{"claims":[],"unknown":["what the files do not say"]}';

describe('a turn id that is no turn number', () => {
  it('is a 404 naming the id it was given, not "turn -1"', async () => {
    const id = await investigation();
    for (const turnId of ['abc', '00000000-0000-4000-8000-000000000000']) {
      const res = await call('GET', `/${id}/turns/${turnId}/events`);
      expect(res.status).toBe(404);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('not_found');
      expect(body.error.message).toContain(`has no turn "${turnId}"`);
      // "turn -1", not "-1" alone: the investigation's own uuid may hold "-1" (CI of 57f0bf8 met 1683b15b-827c-…).
      expect(body.error.message).not.toContain('turn -1');
    }
  });
});

describe('a turn whose event the store fails to write', () => {
  it('is answered over JSON (200, not 500): the answer is stored, and its stored events still end with the result', async () => {
    const id = await investigation();
    stub.script({ kind: 'reply', text: ANSWER });
    failEventWrite = 'provider';
    const res = await call('POST', `/${id}/turns`, { message: 'what happened?' });
    const body = await res.text();
    expect(res.status, body).toBe(200);
    const { turn } = JSON.parse(body) as { turn: { turnId: number; answer: string } };
    expect((await messages(id)).map((m) => m.role)).toEqual(['user', 'assistant']);
    const stored = await replay(id, turn.turnId);
    expect(stored.at(-1)?.event).toBe('result');
    expect((stored.at(-1)!.data as { turn: { answer: string } }).turn.answer).toBe(turn.answer);
    expect(stored.map((e) => e.event)).not.toContain('provider');
    expect(investigations.logged.join('\n')).toMatch(new RegExp(`turn ${turn.turnId}: event 1 \\(provider\\) could not be stored`));
  }, 60_000);

  it('streams only what is stored: the live stream and a replay from the store are the same events, ending with the result', async () => {
    const id = await investigation();
    stub.script({ kind: 'reply', text: ANSWER });
    failEventWrite = 'provider';
    const res = await call('POST', `/${id}/turns`, { message: 'what happened?' }, { stream: true });
    expect(res.status).toBe(200);
    const live = parseSse(await res.text());
    expect(live.at(-1)?.event, JSON.stringify(live)).toBe('result');
    const turnId = (live.at(-1)!.data as { turn: { turnId: number } }).turn.turnId;
    const stored = await replay(id, turnId);
    expect(stored).toEqual(live);
  }, 60_000);

  it('still ends the live stream with the result when the result itself cannot be stored (the answer is stored as the message)', async () => {
    const id = await investigation();
    stub.script({ kind: 'reply', text: ANSWER });
    failEventWrite = 'result';
    const res = await call('POST', `/${id}/turns`, { message: 'what happened?' }, { stream: true });
    const live = parseSse(await res.text());
    expect(live.at(-1)?.event, JSON.stringify(live)).toBe('result');
    expect((await messages(id)).map((m) => m.role)).toEqual(['user', 'assistant']);
    // The result's write is tried again after a failure, so a resumed stream ends with it too: before, it waited
    // TURN_STALE_MS (ten minutes) and then said the turn was interrupted.
    const turnId = (live.at(-1)!.data as { turn: { turnId: number } }).turn.turnId;
    const stored = await replay(id, turnId);
    expect(stored).toEqual(live);
  }, 60_000);
});

describe('an investigation deleted while its turn runs', () => {
  it('ends the turn saying so (not_found), not as an internal error', async () => {
    const id = await investigation();
    // biome-ignore lint/suspicious/noThenProperty: the stub provider's delayed reply names what it then sends; nothing awaits this object
    stub.script({ kind: 'after', ms: 1_500, then: { kind: 'reply', text: ANSWER } });
    const pending = call('POST', `/${id}/turns`, { message: 'what happened?' }, { stream: true });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await call('DELETE', `/${id}`)).status).toBe(200);
    const live = parseSse(await (await pending).text());
    expect(live.at(-1)?.event, JSON.stringify(live)).toBe('error');
    const body = live.at(-1)!.data as { error: { code: string; message: string } };
    expect(body.error.code).toBe('not_found');
    expect(body.error.message).toMatch(/was deleted while this turn ran; its answer was not kept/);
  }, 60_000);
});
