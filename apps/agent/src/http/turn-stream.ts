import type { Context } from 'hono';
import { type SSEStreamingApi, streamSSE } from 'hono/streaming';
import type { RateLimiter, TokenReservation } from '../limits/limiter.ts';
import type { InvestigationService } from '../service/investigation-service.ts';
import { echoed } from '../service/service-error.ts';
import { TURN_STALE_MS } from '../service/turn-interruptions.ts';
import { ApiError, toApiError } from './api-error.ts';
import { parseLastEventId, streamErrorBody } from './run-events.ts';
import { HEARTBEAT_MS, sseQueue } from './run-stream.ts';

export interface TurnStreamOptions {
  readonly investigations: InvestigationService;
  readonly limiter: RateLimiter;
  readonly clientKey: string | undefined;
  /** The tokens reserved for this turn at admission (issue 12, defect 1); settled when it ends. */
  readonly reservation?: TokenReservation | undefined;
  readonly now: () => number;
  readonly log: (line: string) => void;
}

/** The API's error body for a failed turn: what the stream sends and what is stored for a resume to replay. */
export const turnErrorBody = (error: unknown) => toApiError(error).apiError.body();

/**
 * `POST /v1/investigations/:id/turns` as Server-Sent Events, in the shape of
 * `POST /v1/runs` (run-stream.ts): `tool` as each tool call completes,
 * `provider` as the router serves or fails a call, `note` when the turn falls
 * back or drops a claim, then `result` — the JSON route's body — or `error`
 * if the turn fails after the stream opened. Each event's id is its seq in the
 * turn and each is sent once it is stored (InvestigationService.ask), so a
 * client that drops resumes with Last-Event-ID on any replica
 * (GET …/turns/:turnId/events; every event's data carries the turnId). The
 * message and the investigation are checked before the stream opens (a 4xx,
 * not an error event), and the turn never waits for the client: it finishes
 * and is stored whether or not anyone is still reading.
 */
export function streamTurn(c: Context, id: string, message: string, o: TurnStreamOptions): Response {
  // S-269: the whole of it — the turn, its last event, the charge — is held as one of the replica's turns in flight, so
  // a replica shutting down stops the turn (`event: error` `shutting_down`, its question recorded interrupted) and waits
  // for all of it before it closes the store and the limiter. It used to cut the stream with no word and close the
  // store under the turn.
  return streamSSE(c, (stream) => o.investigations.hold((signal) => sendTurn(stream, id, message, signal, o)));
}

async function sendTurn(stream: SSEStreamingApi, id: string, message: string, signal: AbortSignal, o: TurnStreamOptions): Promise<void> {
  const out = sseQueue(stream);
  const heartbeat = setInterval(() => out.comment('heartbeat'), HEARTBEAT_MS);
  let ended = false;
  const served = providerTokenMeter();
  try {
    await o.investigations.ask(id, message, {
      describeError: turnErrorBody,
      log: o.log,
      signal,
      onEvent: (event) => {
        // Counted whether or not it was stored: the tokens were served all the same (defect 3).
        served.onEvent(event);
        const end = event.type === 'result' || event.type === 'error';
        if (end) ended = true;
        // Only what a resume replays, and the end always (AskOptions.onEvent).
        if (event.stored || end) out.send(event.type, event.data, String(event.seq));
      },
    });
  } catch (error) {
    const { apiError, isBug } = toApiError(error);
    if (isBug)
      o.log(`POST /v1/investigations/${id}/turns failed after the stream opened: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    // The service sent (and stored) the error event once the turn had started; before that, it is said here.
    if (!ended) out.send('error', apiError.body());
  } finally {
    clearInterval(heartbeat);
    // Before the stream ends, so a client's next request already meets the charge.
    await chargeTurn(id, served.tokens, o);
    await out.flush();
  }
}

/** How often a followed turn's new events are looked for in the store. */
export const TURN_FOLLOW_POLL_MS = 100;

/**
 * `GET /v1/investigations/:id/turns/:turnId/events`: a turn's stream resumed
 * on ANY replica. Replays the stored events after `Last-Event-ID` (the ids the
 * live stream sent), then follows the store while the turn is still going, and
 * ends at its `result` or `error` — the same events, ids and data the live
 * stream sent. An unknown turn is a 404 before the stream opens.
 */
export async function streamTurnEvents(
  c: Context,
  o: {
    investigations: InvestigationService;
    id: string;
    turnId: string;
    lastEventId: string | undefined;
    pollMs?: number;
    staleMs?: number;
    now?: () => number;
    /** Server-side log for a bug met after the stream opened; default stderr. */
    log?: (line: string) => void;
  },
): Promise<Response> {
  const after = parseLastEventId(o.lastEventId);
  // An id that is no turn number was looked up as turn -1, and the answer named "turn -1" (a colleague's test, 2026-12-05).
  if (!/^\d{1,15}$/.test(o.turnId))
    throw new ApiError(
      'not_found',
      `investigation ${echoed(o.id)} has no turn ${JSON.stringify(echoed(o.turnId))}: a turn id is the number its turn's stream sent (turnId).`,
    );
  const turnId = Number(o.turnId);
  const now = o.now ?? Date.now;
  const first = await o.investigations.turnEvents(o.id, turnId, after);
  return streamSSE(c, async (stream) => {
    const out = sseQueue(stream);
    const heartbeat = setInterval(() => out.comment('heartbeat'), HEARTBEAT_MS);
    let sent = after;
    let page = first;
    let lastActivity = Date.parse(first.askedAt);
    try {
      for (;;) {
        // The events at or before Last-Event-ID count too (page.ended, page.lastEventAt): a client that already has the
        // `result` is resuming a turn that is over, and a live turn resumed after its newest event is not stale by askedAt.
        let ended = page.ended;
        if (page.lastEventAt) lastActivity = Math.max(lastActivity, Date.parse(page.lastEventAt));
        for (const event of page.events) {
          out.send(event.type, event.data, String(event.seq));
          sent = event.seq;
          lastActivity = Math.max(lastActivity, Date.parse(event.createdAt));
          if (event.type === 'result' || event.type === 'error') ended = true;
        }
        if (ended || stream.aborted) break;
        if (now() - lastActivity > (o.staleMs ?? TURN_STALE_MS)) {
          // A code of the one vocabulary, as every error body: this one was written out by hand as `interrupted`, a code
          // the table did not have, so a client parsing error bodies with apiErrorBodySchema could not read it (S-212).
          out.send(
            'error',
            new ApiError('interrupted', `Turn ${turnId} had no event for ${Math.round((o.staleMs ?? TURN_STALE_MS) / 1000)} s and no answer.`).body(),
          );
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, o.pollMs ?? TURN_FOLLOW_POLL_MS));
        page = await o.investigations.turnEvents(o.id, turnId, sent);
      }
    } catch (error) {
      // The stream is open (200): a store gone mid-follow is said as the API's error event, never a silent close.
      out.send('error', streamErrorBody(error, `GET /v1/investigations/${o.id}/turns/${o.turnId}/events`, o.log));
    } finally {
      clearInterval(heartbeat);
      await out.flush();
    }
  });
}

/**
 * Sums the tokens providers served in one turn from its `provider` events, as
 * the service sends them (`kind: 'served'`, `tokensIn`, `tokensOut`). Defect 3:
 * the turn's metrics cannot say this — a turn that fell back to the offline
 * planner reports providers' tokens and the planner's estimate together under
 * provider `offline`, and a turn that throws reports nothing — so the count is
 * taken as the calls are served, whatever the turn's end.
 */
export function providerTokenMeter(): { onEvent(event: { readonly type: string; readonly data: unknown }): void; readonly tokens: number } {
  let tokens = 0;
  const count = (value: unknown) => (typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : 0);
  return {
    onEvent(event) {
      if (event.type !== 'provider' || typeof event.data !== 'object' || event.data === null) return;
      const data = event.data as { kind?: unknown; tokensIn?: unknown; tokensOut?: unknown };
      if (data.kind === 'served') tokens += count(data.tokensIn) + count(data.tokensOut);
    },
    get tokens() {
      return tokens;
    },
  };
}

/**
 * A turn settles the tokens its providers served (`providerTokenMeter`) to the
 * client's daily ceiling, as a run does (T-1) — answered, fallen back to the
 * offline planner, or failed (defect 3): its reservation, booked at admission
 * (issue 12, defect 1), settles to them; without one they are charged. The
 * offline planner's own tokens are estimates of its reading and spend nothing.
 * Never throws: it runs after the turn.
 */
export async function chargeTurn(
  investigationId: string,
  tokens: number,
  o: Pick<TurnStreamOptions, 'limiter' | 'clientKey' | 'reservation' | 'now' | 'log'>,
): Promise<void> {
  const settled = o.reservation
    ? o.limiter.settleTokens(o.reservation, tokens, o.now())
    : tokens === 0 || o.clientKey === undefined
      ? undefined
      : o.limiter.chargeTokens(o.clientKey, tokens, o.now());
  await settled?.catch((error: unknown) => {
    // The turn is done and paid for by the spend guard; an unreachable limiter refuses the NEXT request, and an
    // unsettled reservation is released by expiry.
    o.log(
      `limiter: could not ${o.reservation ? 'settle' : 'charge'} ${tokens} tokens for a turn of investigation ${investigationId}: ${error instanceof Error ? error.message : String(error)}`,
    );
  });
}
