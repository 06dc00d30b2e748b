import { incidentLog } from '@sandscope/engine/testing';
import { startStore, type Store } from '@sandscope/store';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { type AgentService, startAgentService } from '../service/compose.ts';
import { appDepsOf, createApp } from './app.ts';
import { parseSse, type SseEvent } from './testing/sse-events.ts';
import type { InvestigationService } from '../service/investigation-service.ts';
import { streamTurnEvents } from './turn-stream.ts';

/**
 * A turn's stream resumed with the id of its LAST event (`result`): the client
 * has everything — an EventSource reconnects like this whenever the server ends
 * a stream. The resume used to see no event after the id, take the turn for
 * one still going, and either hold the connection open polling the store for
 * up to 10 minutes, or — for a turn asked more than 10 minutes ago — send
 * `error: interrupted` "stopped without an answer … ask again" about a turn
 * that has its answer (asking again spends the turn's money twice).
 */
const TOKEN = 'turn-ended-token-0123456789abcdef';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const JSON_AUTH = { ...AUTH, 'content-type': 'application/json' };

describe('a turn stream resumed after its last event', () => {
  let store: Store;
  let agent: AgentService;
  let app: ReturnType<typeof createApp>;
  let id: string;
  let turnId: number;
  let lastId: string;

  beforeAll(async () => {
    store = await startStore({ dataDir: 'memory://' });
    const parsed = loadConfig({ AGENT_TOKEN: TOKEN, IP_SALT: 'salt-for-tests-0123456789', RATE_LIMIT_MAX: '1000' }, { requireToken: true });
    if (!parsed.ok) throw new Error(parsed.message);
    agent = await startAgentService({ config: parsed.config, store, log: () => {} });
    app = createApp(appDepsOf(agent, { log: () => {} }));
    const created = await app.request('/v1/investigations', { method: 'POST', headers: JSON_AUTH, body: JSON.stringify({ title: 'ended turn' }) });
    id = ((await created.json()) as { investigation: { id: string } }).investigation.id;
    const put = await app.request(`/v1/investigations/${id}/files/app.log`, { method: 'PUT', headers: AUTH, body: incidentLog() });
    expect(put.status).toBe(201);
    const asked = await app.request(`/v1/investigations/${id}/turns`, {
      method: 'POST',
      headers: JSON_AUTH,
      body: JSON.stringify({ message: 'Why is checkout getting 502s from orders-db?' }),
    });
    expect(asked.status).toBe(200);
    turnId = ((await asked.json()) as { turn: { turnId: number } }).turn.turnId;
    const all = parseSse(await (await app.request(`/v1/investigations/${id}/turns/${turnId}/events`, { headers: AUTH })).text());
    expect(all.at(-1)?.event, 'precondition: the turn ended with its result').toBe('result');
    lastId = all.at(-1)!.id!;
  }, 120_000);

  afterAll(async () => {
    await agent?.close();
    await store?.close();
  });

  /** The stream's events, or null if it has not ended within `ms` (the reader is then cancelled: the client hangs up). */
  async function eventsWithin(res: Response, ms: number): Promise<SseEvent[] | null> {
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    const deadline = Date.now() + ms;
    for (;;) {
      const left = deadline - Date.now();
      if (left <= 0) break;
      const next = await Promise.race([reader.read(), new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), left))]);
      if (next === 'late') break;
      if (next.done) return parseSse(text);
      text += next.value;
    }
    await reader.cancel().catch(() => undefined);
    return null;
  }

  it('ends at once with nothing to send, instead of following a turn that is over', async () => {
    const res = await app.request(`/v1/investigations/${id}/turns/${turnId}/events`, { headers: { ...AUTH, 'last-event-id': lastId } });
    expect(res.status).toBe(200);
    expect(await eventsWithin(res, 3_000), 'the stream ends within 3 s').toEqual([]);
  });

  it('never says a turn that has its answer "stopped without an answer", however long ago it was asked', async () => {
    const c = new Hono();
    c.get('/t', (ctx) =>
      streamTurnEvents(ctx, {
        investigations: agent.investigations!,
        id,
        turnId: String(turnId),
        lastEventId: lastId,
        pollMs: 1,
        now: () => Date.now() + 11 * 60_000,
      }),
    );
    const events = await eventsWithin(await c.request('/t'), 3_000);
    expect(events).toEqual([]);
  });
});

describe('a live turn resumed after its newest event', () => {
  let store: Store;
  let agent: AgentService;

  beforeAll(async () => {
    store = await startStore({ dataDir: 'memory://' });
    const parsed = loadConfig({ AGENT_TOKEN: TOKEN, IP_SALT: 'salt-for-tests-0123456789' }, { requireToken: true });
    if (!parsed.ok) throw new Error(parsed.message);
    agent = await startAgentService({ config: parsed.config, store, log: () => {} });
  }, 120_000);

  afterAll(async () => {
    await agent?.close();
    await store?.close();
  });

  it('is not called stale by when it was asked: an event a moment ago keeps it followed', async () => {
    const { createInvestigation, appendInvestigationMessage, appendTurnEvent } = await import('@sandscope/store');
    const investigation = await createInvestigation(store.db, { title: 'long turn' });
    // Asked an hour ago, still working: its last tool call was stored just now.
    const asked = await appendInvestigationMessage(store.db, investigation.id, { role: 'user', text: 'what happened overnight?' });
    await store.db.query("update investigation_message set created_at = now() - interval '1 hour' where id = $1", [asked.id]);
    await appendTurnEvent(store.db, { investigationId: investigation.id, turnId: asked.id, seq: 1, type: 'tool', data: { tool: 'read_file' } });

    const c = new Hono();
    c.get('/t', (ctx) =>
      streamTurnEvents(ctx, { investigations: agent.investigations!, id: investigation.id, turnId: String(asked.id), lastEventId: '1', pollMs: 5 }),
    );
    const res = await c.request('/t');
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    const first = await Promise.race([reader.read(), new Promise<'open'>((resolve) => setTimeout(() => resolve('open'), 1_000))]);
    await reader.cancel().catch(() => undefined);
    // The stream sees the hang-up at its next poll; let it stop before the store closes under it.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(first === 'open' ? 'still following' : `sent: ${first.done ? '(end)' : first.value}`).toBe('still following');
  });
});

describe('a turn resumed after a result that is sent but not yet stored', () => {
  it('ends as soon as the result is stored, at the next look', async () => {
    // The live stream sends each event as it is stored, so a client can hold the result a moment before the record does.
    const now = new Date().toISOString();
    const pages = [
      { askedAt: now, events: [], ended: false, lastEventAt: now },
      { askedAt: now, events: [], ended: true, lastEventAt: now },
    ];
    let reads = 0;
    const investigations = { turnEvents: async () => pages[Math.min(reads++, pages.length - 1)] } as unknown as InvestigationService;
    const c = new Hono();
    c.get('/t', (ctx) => streamTurnEvents(ctx, { investigations, id: 'i', turnId: '7', lastEventId: '4', pollMs: 1 }));
    const res = await c.request('/t');
    const text = await Promise.race([res.text(), new Promise<'open'>((resolve) => setTimeout(() => resolve('open'), 2_000))]);
    expect(text === 'open' ? 'still open after 2 s' : parseSse(text)).toEqual([]);
    expect(reads).toBe(2);
  });
});
