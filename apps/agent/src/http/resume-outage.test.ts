import { StoreError } from '@sandscope/store';
import { type Context, Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { InvestigationService } from '../service/investigation-service.ts';
import type { RunDetailView, RunReader } from '../service/run-reader.ts';
import { toApiError } from './api-error.ts';
import { streamRunEvents } from './run-events.ts';
import { parseSse, type SseEvent } from './testing/sse-events.ts';
import { streamTurnEvents } from './turn-stream.ts';

/**
 * A resumed stream (GET /v1/runs/:id/events, GET …/turns/:turnId/events) has
 * answered 200 before it follows the store. When the store goes away while it
 * follows, the client must be told — the API's `event: error` with
 * `store_unavailable` — not have the stream simply stop with neither its last
 * event nor an error, while the error went to stderr past the scrubbed log.
 */

const RUN_ID = '00000000-0000-4000-8000-000000000001';
const INVESTIGATION_ID = '00000000-0000-4000-8000-000000000002';
const outage = () => new StoreError('database_unreachable', 'The Postgres server in DATABASE_URL (postgres://u:***@db/x) is unreachable: ECONNREFUSED');

/** Serves one route as the app does (errors converted in onError) and reads the whole stream; stderr is captured. */
async function streamOf(path: string, handler: (c: Context) => Promise<Response>): Promise<{ events: SseEvent[]; stderr: unknown[] }> {
  const app = new Hono();
  app.onError((error, c) => {
    const { apiError } = toApiError(error);
    return c.json(apiError.body(), apiError.status);
  });
  app.get(path, handler);
  const stderr: unknown[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void stderr.push(args);
  try {
    const res = await app.request(path);
    expect(res.status).toBe(200);
    return { events: parseSse(await res.text()), stderr };
  } finally {
    console.error = original;
  }
}

describe('a resumed stream whose store goes away while it follows', () => {
  it('GET /v1/runs/:id/events ends with `event: error` store_unavailable, not a silent close', async () => {
    let reads = 0;
    const reader = {
      get: async () => {
        reads += 1;
        if (reads > 1) throw outage();
        return {
          run: { id: RUN_ID, status: 'running' },
          spans: [{ runId: RUN_ID, seq: 1, node: 'classify', kind: 'start', at: new Date(0).toISOString(), data: {} }],
        } as unknown as RunDetailView;
      },
    } as unknown as RunReader;
    const path = `/v1/runs/${RUN_ID}/events`;
    const { events, stderr } = await streamOf(path, (c) => streamRunEvents(c, { reader, runId: RUN_ID, sessionId: 's', lastEventId: undefined, pollMs: 1 }));
    expect(reads).toBe(2);
    expect(events.map((e) => e.event)).toEqual(['node', 'error']);
    expect((events[1]!.data as { error: { code: string } }).error.code).toBe('store_unavailable');
    expect(JSON.stringify(events)).not.toContain('ECONNREFUSED');
    expect(stderr).toEqual([]);
  });

  it('GET /v1/investigations/:id/turns/:turnId/events ends with `event: error` store_unavailable, not a silent close', async () => {
    let reads = 0;
    const investigations = {
      turnEvents: async () => {
        reads += 1;
        if (reads > 1) throw outage();
        return { askedAt: new Date().toISOString(), events: [{ seq: 1, type: 'tool', data: { tool: 'list_files' }, createdAt: new Date().toISOString() }] };
      },
    } as unknown as InvestigationService;
    const path = `/v1/investigations/${INVESTIGATION_ID}/turns/7/events`;
    const { events, stderr } = await streamOf(path, (c) =>
      streamTurnEvents(c, { investigations, id: INVESTIGATION_ID, turnId: '7', lastEventId: undefined, pollMs: 1 }),
    );
    expect(reads).toBe(2);
    expect(events.map((e) => e.event)).toEqual(['tool', 'error']);
    expect((events[1]!.data as { error: { code: string } }).error.code).toBe('store_unavailable');
    expect(JSON.stringify(events)).not.toContain('ECONNREFUSED');
    expect(stderr).toEqual([]);
  });

  it('a bug there is `internal` in the stream, its stack only in the server log', async () => {
    let reads = 0;
    const reader = {
      get: async () => {
        reads += 1;
        if (reads > 1) throw new TypeError('cannot read properties of undefined (secret internals)');
        return { run: { id: RUN_ID, status: 'running' }, spans: [] } as unknown as RunDetailView;
      },
    } as unknown as RunReader;
    const logged: string[] = [];
    const path = `/v1/runs/${RUN_ID}/events`;
    const { events, stderr } = await streamOf(path, (c) =>
      streamRunEvents(c, { reader, runId: RUN_ID, sessionId: 's', lastEventId: undefined, pollMs: 1, log: (line) => logged.push(line) }),
    );
    expect(events.map((e) => e.event)).toEqual(['error']);
    expect((events[0]!.data as { error: { code: string; message: string } }).error.code).toBe('internal');
    expect(JSON.stringify(events)).not.toContain('secret internals');
    expect(logged.join('\n')).toContain('secret internals');
    expect(stderr).toEqual([]);
  });
});
