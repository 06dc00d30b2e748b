import type { RunEvent, RunInput } from '@sandscope/engine/orchestrator';
import { startStore, type Store } from '@sandscope/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { type AgentService, startAgentService } from '../service/compose.ts';
import type { RunExecutor } from '../service/run-service.ts';
import { appDepsOf, createApp } from './app.ts';
import { listen, type Listening } from './listen.ts';
import { readSseEvents } from './testing/sse-events.ts';

/**
 * Issue 11 section 2 over real sockets (the socket is the point: a client cuts
 * a stream and resumes it elsewhere). Two agent services on one database; a
 * run started on A is read for three events, the connection dropped, and the
 * stream resumed on B with Last-Event-ID: B replays the stored spans after it,
 * follows the run while it is still going, and ends — with no gap and no
 * duplicate against the run's record.
 */
const TOKEN = 'resume-token-0123456789abcdef0123';
const AUTH = { authorization: `Bearer ${TOKEN}` };

/** Holds every node event after the third until released, so the run is still running when B picks it up. */
class ThirdEventGate {
  release!: () => void;
  readonly released = new Promise<void>((resolve) => (this.release = resolve));
  wrap(executor: RunExecutor): RunExecutor {
    return {
      run: async (input: RunInput) => {
        const held: RunEvent[] = [];
        let nodes = 0;
        let open = false;
        const forward = input.onEvent ?? (() => {});
        const onEvent = (event: RunEvent) => {
          if (event.type === 'node' && (nodes += 1) > 3 && !open) held.push(event);
          else if (!open && held.length > 0) held.push(event);
          else forward(event);
        };
        const result = await executor.run({ ...input, onEvent });
        await this.released;
        open = true;
        for (const event of held) forward(event);
        return result;
      },
    };
  }
}

describe('a run stream resumed on another replica with Last-Event-ID', () => {
  let store: Store;
  const gate = new ThirdEventGate();
  const agents: AgentService[] = [];
  const servers: Listening[] = [];

  beforeAll(async () => {
    store = await startStore({ dataDir: 'memory://' });
    const parsed = loadConfig({ AGENT_TOKEN: TOKEN, IP_SALT: 'salt-for-tests-0123456789' }, { requireToken: true });
    if (!parsed.ok) throw new Error(parsed.message);
    agents.push(await startAgentService({ config: parsed.config, store, log: () => {}, executor: (o) => gate.wrap(o) }));
    agents.push(await startAgentService({ config: parsed.config, store, log: () => {} }));
    for (const agent of agents) servers.push(await listen(createApp(appDepsOf(agent)), { port: 0, host: '127.0.0.1' }));
  }, 120_000);

  afterAll(async () => {
    gate.release();
    for (const server of servers) await server.close(1_000);
    for (const agent of agents) await agent.close();
    await store?.close();
  });

  it('reads 3 events on A, reconnects on B, and gets the rest without gaps or duplicates', async () => {
    const [a, b] = servers as [Listening, Listening];
    const abort = new AbortController();
    const started = await fetch(`${a.url}/v1/runs`, {
      method: 'POST',
      headers: { ...AUTH, 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'What is the connection pool ceiling for orders-db?' }),
      signal: abort.signal,
    });
    expect(started.status).toBe(200);
    const firstThree = await readSseEvents(started.body!, 3);
    abort.abort();
    expect(firstThree.map((e) => [e.event, e.id])).toEqual([
      ['node', '1'],
      ['node', '2'],
      ['node', '3'],
    ]);
    const runId = (firstThree[0]!.data as { runId: string }).runId;

    const resumed = await fetch(`${b.url}/v1/runs/${runId}/events`, { headers: { ...AUTH, 'last-event-id': firstThree.at(-1)!.id! } });
    expect(resumed.status).toBe(200);
    expect(resumed.headers.get('content-type')).toMatch(/^text\/event-stream/);
    // The run is still going on A: B must follow it, not end at what is stored now.
    setTimeout(() => gate.release(), 300);
    const rest = await readSseEvents(resumed.body!);
    const last = rest.at(-1)!;
    expect(last.event).toBe('run');
    expect(last.data).toMatchObject({ id: runId, status: 'completed' });

    const nodes = [...firstThree, ...rest.filter((e) => e.event === 'node')];
    const seqs = nodes.map((e) => (e.data as { seq: number }).seq);
    expect(nodes.map((e) => e.id)).toEqual(seqs.map(String));
    const detail = (await (await fetch(`${b.url}/v1/runs/${runId}`, { headers: AUTH })).json()) as { spans: { seq: number }[] };
    expect(detail.spans.length).toBeGreaterThan(3);
    expect(seqs).toEqual(detail.spans.map((s) => s.seq));
    expect(nodes.map((e) => e.data)).toEqual(detail.spans);
  });

  it('an id that is not one this stream sent is a 400, an unknown run a 404', async () => {
    const [, b] = servers as [Listening, Listening];
    const bad = await fetch(`${b.url}/v1/runs/00000000-0000-4000-8000-000000000000/events`, { headers: { ...AUTH, 'last-event-id': 'abc' } });
    expect(bad.status).toBe(400);
    const missing = await fetch(`${b.url}/v1/runs/00000000-0000-4000-8000-000000000000/events`, { headers: AUTH });
    expect(missing.status).toBe(404);
  });
});
