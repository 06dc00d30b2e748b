import { apiErrorBodySchema } from '@sandscope/api/errors';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { RunDetailView, RunReader } from '../service/run-reader.ts';
import { API_ERRORS, toApiError } from './api-error.ts';
import { streamRunEvents } from './run-events.ts';
import { parseSse } from './testing/sse-events.ts';

/**
 * S-212: `GET /v1/runs/:id/events` with a Last-Event-ID past the run's newest event. While the run ran, the stream
 * skipped every span up to that id and followed the run to its end: a client's wrong id (another run's, a counter
 * of its own) became a silent gap, and its request hung for as long as the run took. A span is stored before any
 * stream sends it, so no stream can have sent such an id: it is refused before the stream opens. A run that is over
 * ends at once with its state, as a turn resumed past its end ends at once (turn-resume-ended.test.ts).
 */
const RUN_ID = '00000000-0000-4000-8000-000000000003';

/** A run as the reader gives it: `status`, with spans 1…`spans`. `reads` counts how often the stream looked. */
function readerOf(status: 'running' | 'completed', spans: number): { reader: RunReader; reads: () => number } {
  let reads = 0;
  const detail = {
    run: { id: RUN_ID, status },
    spans: Array.from({ length: spans }, (_, i) => ({ runId: RUN_ID, seq: i + 1, node: 'classify', kind: 'start', at: new Date(0).toISOString(), data: {} })),
  } as unknown as RunDetailView;
  const reader = {
    get: async () => {
      reads += 1;
      return detail;
    },
  } as unknown as RunReader;
  return { reader, reads: () => reads };
}

/** The route as the app serves it (errors converted in onError), with `Last-Event-ID: lastEventId`. */
async function resume(reader: RunReader, lastEventId: string): Promise<Response> {
  const app = new Hono();
  app.onError((error, c) => {
    const { apiError } = toApiError(error);
    return c.json(apiError.body(), apiError.status);
  });
  app.get('/e', (c) => streamRunEvents(c, { reader, runId: RUN_ID, sessionId: 's', lastEventId, pollMs: 1 }));
  return app.request('/e');
}

/** The response's text, or 'still open' if it has not ended within `ms` (the reader is then cancelled). */
async function textWithin(res: Response, ms: number): Promise<string> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  const deadline = Date.now() + ms;
  for (;;) {
    const left = deadline - Date.now();
    const next = left > 0 ? await Promise.race([reader.read(), new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), left))]) : 'late';
    if (next === 'late') {
      await reader.cancel().catch(() => undefined);
      return 'still open';
    }
    if (next.done) return text;
    text += next.value;
  }
}

describe('a run stream resumed with a Last-Event-ID past its newest event', () => {
  it('is 400 invalid_request before the stream opens while the run is running, saying the id is past its newest event', async () => {
    const { reader, reads } = readerOf('running', 3);
    const res = await resume(reader, '9');
    const text = await textWithin(res, 2_000);
    expect(res.status, text).toBe(400);
    const { error } = apiErrorBodySchema.parse(JSON.parse(text));
    expect(error).toEqual({
      code: 'invalid_request',
      message: `Last-Event-ID 9 is past run ${RUN_ID}'s newest event (3): send the id of the last event you received, or none to replay the run from its start. ${API_ERRORS.invalid_request.remedy}`,
    });
    expect(reads()).toBe(1);
  });

  it('ends at once with the run’s state when the run is over, as a turn resumed past its end does', async () => {
    const { reader } = readerOf('completed', 3);
    const res = await resume(reader, '9');
    expect(res.status).toBe(200);
    const events = parseSse(await textWithin(res, 2_000));
    expect(events).toEqual([{ event: 'run', data: { id: RUN_ID, status: 'completed' } }]);
  });

  it('still follows a running run from an id it has sent, its newest included', async () => {
    const { reader, reads } = readerOf('running', 3);
    const res = await resume(reader, '3');
    expect(res.status).toBe(200);
    expect(await textWithin(res, 300)).toBe('still open');
    expect(reads()).toBeGreaterThan(1);
  });
});
