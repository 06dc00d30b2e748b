import type { Context } from 'hono';
import { streamSSE, type SSEStreamingApi } from 'hono/streaming';
import type { RateLimiter, TokenReservation } from '../limits/limiter.ts';
import { type AdmittedRun, RunStoppedError } from '../service/run-service.ts';
import type { RunResultView } from '../service/run-views.ts';
import { toApiError } from './api-error.ts';

/** A comment line this often keeps proxies from closing a stream that is waiting on a slow provider. */
export const HEARTBEAT_MS = 15_000;

export interface RunStreamOptions {
  readonly limiter: RateLimiter;
  readonly clientKey: string;
  /** The tokens reserved for this run at admission (defect 1); settled here when the run ends. */
  readonly reservation?: TokenReservation;
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
 * After the run, its reservation is settled to the tokens it used (T-1; issue 12,
 * defect 1) — or, without a reservation, those tokens are charged.
 *
 * S-258: the whole of it — the run, its last event, the settlement — is held as
 * one of the replica's runs in flight, so a replica shutting down stops the run
 * (`event: error` `shutting_down`, the run recorded interrupted, its tokens
 * settled to what its served calls used) and waits for all of it before it
 * closes the store, the limiter and the spend ledger.
 */
export function streamRun(c: Context, run: AdmittedRun, o: RunStreamOptions): Response {
  return streamSSE(c, (stream) => run.hold((signal) => sendRun(stream, run, signal, o)));
}

async function sendRun(stream: SSEStreamingApi, run: AdmittedRun, signal: AbortSignal, o: RunStreamOptions): Promise<void> {
  const out = sseQueue(stream);
  const heartbeat = setInterval(() => out.comment('heartbeat'), HEARTBEAT_MS);
  let used: number | undefined;
  try {
    // A node event's id is its span seq, so a client can resume with Last-Event-ID on any replica (GET /v1/runs/:id/events).
    const result = await run.execute((event) => out.send(event.type, event.data, event.type === 'node' ? String(event.data.seq) : undefined), signal);
    out.send('result', result);
    used = providerTokensOf(result);
  } catch (error) {
    // Stopped by the shutdown: what its served calls reported is known. The call cut short was settled at its bound by its
    // guard (S-267: the provider may bill it), which is the deployment's money; the client's tokens count only what was served.
    if (error instanceof RunStoppedError) used = providerTokensOf({ providers: error.providerEvents });
    const { apiError, isBug } = toApiError(error);
    if (isBug) o.log(`POST /v1/runs failed after the stream opened: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    out.send('error', apiError.body());
  } finally {
    clearInterval(heartbeat);
    // A run that failed may have spent tokens nobody counted: it is charged its whole reservation (fail safe).
    const tokens = used ?? o.reservation?.tokens ?? 0;
    const settled = o.reservation
      ? o.limiter.settleTokens(o.reservation, tokens, o.now())
      : tokens > 0
        ? o.limiter.chargeTokens(o.clientKey, tokens, o.now())
        : Promise.resolve();
    await settled.catch((error: unknown) => {
      // The run is done and paid for by the spend guard; an unreachable limiter refuses the NEXT request,
      // and the reservation is released by expiry.
      o.log(`limiter: could not settle ${tokens} tokens for a run: ${error instanceof Error ? error.message : String(error)}`);
    });
    await out.flush();
  }
}

/**
 * Tokens the run's model calls consumed, as the providers reported them: every
 * call the router served — the adjudicator's too, not only the draft attempts
 * the run record counts — and nothing for a cache hit, which reached no provider.
 */
export function providerTokensOf(result: Pick<RunResultView, 'providers'>): number {
  let tokens = 0;
  for (const event of result.providers) {
    if (event.kind !== 'served') continue;
    tokens += event.tokensIn !== undefined || event.tokensOut !== undefined ? (event.tokensIn ?? 0) + (event.tokensOut ?? 0) : (event.tokens ?? 0);
  }
  return tokens;
}

/**
 * One ordered writer per stream: events keep their order, a write to a stream
 * the client left is dropped, and nothing the producer does waits on the client.
 *
 * ADR-0004: events that arrive together (a run's recorder forwards a whole
 * flush at once) leave in ONE write — each write was a chunk through the web
 * stream and a `writev` on the socket, about a millisecond per run of system
 * time in the load profile. The text is what hono's `writeSSE` writes, event by
 * event; a message is never delayed behind anything but the write before it.
 */
export function sseQueue(stream: SSEStreamingApi) {
  let queue: Promise<void> = Promise.resolve();
  let buffered = '';
  const push = (text: string) => {
    const startsWrite = buffered === '';
    buffered += text;
    if (!startsWrite) return;
    queue = queue
      .then(async () => {
        const chunk = buffered;
        buffered = '';
        if (!stream.aborted && !stream.closed) await stream.write(chunk);
      })
      .catch(() => {});
  };
  return {
    send: (event: string, data: unknown, id?: string) => push(sseMessage(event, JSON.stringify(data), id)),
    comment: (text: string) => push(`: ${text}\n\n`),
    flush: () => queue,
  };
}

/** One Server-Sent Event, as hono's writeSSE formats it: `event`, a `data:` line per line, then `id`. */
export function sseMessage(event: string, data: string, id?: string): string {
  for (const [field, value] of [
    ['event', event],
    ['id', id],
  ] as const) {
    if (value !== undefined && /[\r\n]/.test(value)) throw new Error(`${field} must not contain "\\r" or "\\n"`);
  }
  const dataLines = data
    .split(/\r\n|\r|\n/)
    .map((line) => `data: ${line}`)
    .join('\n');
  return `${event ? `event: ${event}\n` : ''}${dataLines}\n${id !== undefined ? `id: ${id}\n` : ''}\n`;
}
