import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { RunReader } from '../service/run-reader.ts';
import { echoed } from '../service/service-error.ts';
import { ApiError, toApiError } from './api-error.ts';
import { HEARTBEAT_MS, sseQueue } from './run-stream.ts';

/** How often a followed run's new spans are looked for in the store. */
export const FOLLOW_POLL_MS = 100;

export interface RunEventsOptions {
  readonly reader: RunReader;
  readonly runId: string;
  readonly sessionId: string;
  /** `Last-Event-ID`: the span seq the client last saw; absent replays from the first. */
  readonly lastEventId: string | undefined;
  readonly pollMs?: number;
  /** Server-side log for a bug met after the stream opened (the app's scrubbed log); default stderr. */
  readonly log?: (line: string) => void;
}

/**
 * `GET /v1/runs/:id/events`: a run's stream resumed on ANY replica (issue 11
 * section 2). Spans are the record (each is stored before any client sees it,
 * RunRecorder), so this replays the stored spans after `Last-Event-ID` — ids are
 * span seqs, the same ids `POST /v1/runs` sends — then follows the store while
 * the run is still running, and ends with `event: run` (the run's state, as
 * `GET /v1/runs/:id` gives it). Nothing here needs the replica that runs it.
 */
export async function streamRunEvents(c: Context, o: RunEventsOptions): Promise<Response> {
  const after = parseLastEventId(o.lastEventId);
  // Looked up before the stream opens, so an unknown run is a 404, not a 200 with an error inside.
  const first = await o.reader.get(o.runId, o.sessionId);
  if (!first) throw new ApiError('not_found', `run ${echoed(o.runId)} does not exist.`);
  // S-212: an id past the run's newest span, while it ran, was followed silently: the stream skipped every span up to
  // that id and ended at the run's end, a client's mistake (another run's id, a counter of its own) turned into a gap
  // with no word said. A span is stored before any stream sends it (RunRecorder), so no stream can have sent an id the
  // record does not hold yet: it is refused before the stream opens. A run that is over ends at once with its state (as
  // a turn resumed past its end ends at once), since nothing after the id will ever come.
  const newest = first.spans.reduce((max, span) => Math.max(max, span.seq), 0);
  if (after > newest && first.run.status === 'running') {
    throw new ApiError(
      'invalid_request',
      `Last-Event-ID ${after} is past run ${first.run.id}'s newest event (${newest}): send the id of the last event you received, or none to replay the run from its start.`,
    );
  }
  return streamSSE(c, async (stream) => {
    const out = sseQueue(stream);
    const heartbeat = setInterval(() => out.comment('heartbeat'), HEARTBEAT_MS);
    let sent = after;
    let detail = first;
    try {
      for (;;) {
        for (const span of detail.spans) {
          if (span.seq <= sent) continue;
          out.send('node', span, String(span.seq));
          sent = span.seq;
        }
        if (detail.run.status !== 'running' || stream.aborted) break;
        await new Promise((resolve) => setTimeout(resolve, o.pollMs ?? FOLLOW_POLL_MS));
        detail = (await o.reader.get(o.runId, o.sessionId)) ?? detail;
      }
      out.send('run', detail.run);
    } catch (error) {
      // The stream is open (200): a store gone mid-follow is said as the API's error event, never a silent close.
      out.send('error', streamErrorBody(error, `GET /v1/runs/${o.runId}/events`, o.log));
    } finally {
      clearInterval(heartbeat);
      await out.flush();
    }
  });
}

/**
 * The `event: error` body for a failure after a stream opened, converted once
 * (STYLE 7): an outage is `store_unavailable`, anything else `internal`, whose
 * message and stack go to the server log only.
 */
export function streamErrorBody(error: unknown, where: string, log: (line: string) => void = (line) => process.stderr.write(`${line}\n`)) {
  const { apiError, isBug } = toApiError(error);
  if (isBug) log(`${where} failed after the stream opened: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  return apiError.body();
}

/** A span seq, or 0 (from the start) for none; anything else is the client's mistake, said plainly. */
export function parseLastEventId(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === '') return 0;
  if (!/^\d{1,9}$/.test(raw.trim())) {
    throw new ApiError(
      'invalid_request',
      `Last-Event-ID must be the id of an event this stream sent (a whole number such as 3); got ${JSON.stringify(echoed(raw, 40))}.`,
    );
  }
  return Number(raw.trim());
}
