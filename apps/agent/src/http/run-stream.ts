import type { Context } from 'hono';
import { streamSSE, type SSEStreamingApi } from 'hono/streaming';
import type { RateLimiter } from '../limits/limiter.ts';
import { type RunService, tokensOf } from '../service/run-service.ts';
import { toApiError } from './api-error.ts';
import type { RunRequest } from './run-request.ts';

/** A comment line this often keeps proxies from closing a stream that is waiting on a slow provider. */
export const HEARTBEAT_MS = 15_000;

export interface RunStreamOptions {
  readonly runs: RunService;
  readonly limiter: RateLimiter;
  readonly clientKey: string;
  readonly sessionId: string;
  readonly now: () => number;
  readonly log: (line: string) => void;
}

/**
 * `POST /v1/runs` as Server-Sent Events: `node` and `provider` events as the run
 * records them, then `result` — or `error` if the run fails after the stream
 * opened. Writes go through one queue so events keep their order, and the run
 * never waits for the client: a slow or vanished reader cannot stall the run or
 * its record (the run finishes and is stored either way).
 *
 * After the run, its tokens are charged to the client's daily ceiling (T-1).
 */
export function streamRun(c: Context, request: RunRequest, o: RunStreamOptions): Response {
  return streamSSE(c, async (stream) => {
    const out = sseQueue(stream);
    const heartbeat = setInterval(() => out.comment('heartbeat'), HEARTBEAT_MS);
    try {
      const result = await o.runs.start({
        question: request.question,
        workload: request.workload,
        failProviders: request.failProviders,
        sessionId: o.sessionId,
        onEvent: (event) => out.send(event.type, event.data),
      });
      out.send('result', result);
      const { tokensIn, tokensOut } = tokensOf(result);
      await o.limiter.chargeTokens(o.clientKey, tokensIn + tokensOut, o.now()).catch((error: unknown) => {
        // The run is done and paid for by the spend guard; an unreachable limiter refuses the NEXT request.
        o.log(`limiter: could not charge ${tokensIn + tokensOut} tokens for run ${result.runId}: ${error instanceof Error ? error.message : String(error)}`);
      });
    } catch (error) {
      const { apiError, isBug } = toApiError(error);
      if (isBug) o.log(`POST /v1/runs failed after the stream opened: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      out.send('error', apiError.body());
    } finally {
      clearInterval(heartbeat);
      await out.flush();
    }
  });
}

/**
 * One ordered writer per stream: events keep their order, a write to a stream
 * the client left is dropped, and nothing the producer does waits on the client.
 */
export function sseQueue(stream: SSEStreamingApi) {
  let queue: Promise<void> = Promise.resolve();
  const enqueue = (write: () => Promise<unknown>) => {
    queue = queue.then(async () => {
      if (!stream.aborted && !stream.closed) await write();
    }).catch(() => {});
  };
  return {
    send: (event: string, data: unknown, id?: string) => enqueue(() => stream.writeSSE({ event, data: JSON.stringify(data), ...(id === undefined ? {} : { id }) })),
    comment: (text: string) => enqueue(() => stream.write(`: ${text}\n\n`)),
    flush: () => queue,
  };
}
