import type { Context } from 'hono';
import { streamSSE, type SSEStreamingApi } from 'hono/streaming';
import type { RateLimiter } from '../limits/limiter.ts';
import { type AdmittedRun, tokensOf } from '../service/run-service.ts';
import { toApiError } from './api-error.ts';

/** A comment line this often keeps proxies from closing a stream that is waiting on a slow provider. */
const HEARTBEAT_MS = 15_000;

export interface RunStreamOptions {
  readonly limiter: RateLimiter;
  readonly clientKey: string;
  readonly now: () => number;
  readonly log: (line: string) => void;
}

/**
 * `POST /v1/runs` as Server-Sent Events: `node` and `provider` events as the run
 * records them, then `result` — or `error` if the run fails after the stream
 * opened. The run is already admitted (RunService.admit): the stream opens only
 * for a run the store has accepted (issue 12, defect 4). Writes go through one queue so events keep their order, and the run
 * never waits for the client: a slow or vanished reader cannot stall the run or
 * its record (the run finishes and is stored either way).
 *
 * After the run, its tokens are charged to the client's daily ceiling (T-1).
 */
export function streamRun(c: Context, run: AdmittedRun, o: RunStreamOptions): Response {
  return streamSSE(c, async (stream) => {
    const out = sseQueue(stream);
    const heartbeat = setInterval(() => out.comment('heartbeat'), HEARTBEAT_MS);
    try {
      const result = await run.execute((event) => out.send(event.type, event.data));
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

function sseQueue(stream: SSEStreamingApi) {
  let queue: Promise<void> = Promise.resolve();
  const enqueue = (write: () => Promise<unknown>) => {
    queue = queue.then(async () => {
      if (!stream.aborted && !stream.closed) await write();
    }).catch(() => {});
  };
  return {
    send: (event: string, data: unknown) => enqueue(() => stream.writeSSE({ event, data: JSON.stringify(data) })),
    comment: (text: string) => enqueue(() => stream.write(`: ${text}\n\n`)),
    flush: () => queue,
  };
}
