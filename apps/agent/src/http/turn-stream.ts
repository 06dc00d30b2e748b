import type { TurnEvent } from '@sandscope/engine/workspace';
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { RateLimiter } from '../limits/limiter.ts';
import type { InvestigationService, TurnView } from '../service/investigation-service.ts';
import { toApiError } from './api-error.ts';
import { HEARTBEAT_MS, sseQueue } from './run-stream.ts';

export interface TurnStreamOptions {
  readonly investigations: InvestigationService;
  readonly limiter: RateLimiter;
  readonly clientKey: string | undefined;
  readonly now: () => number;
  readonly log: (line: string) => void;
}

/**
 * `POST /v1/investigations/:id/turns` as Server-Sent Events, in the shape of
 * `POST /v1/runs` (run-stream.ts): `tool` as each tool call completes,
 * `provider` as the router serves or fails a call, `note` when the turn falls
 * back or drops a claim, then `result` — the JSON route's body — or `error`
 * if the turn fails after the stream opened. Each event carries an id (its
 * number in the turn) so a client can tell what it has seen. The message and
 * the investigation are checked before the stream opens (a 4xx, not an error
 * event), and the turn never waits for the client: it finishes and is stored
 * whether or not anyone is still reading.
 */
export function streamTurn(c: Context, id: string, message: string, o: TurnStreamOptions): Response {
  return streamSSE(c, async (stream) => {
    const out = sseQueue(stream);
    let seq = 0;
    const send = (event: string, data: unknown) => out.send(event, data, String(++seq));
    const heartbeat = setInterval(() => out.comment('heartbeat'), HEARTBEAT_MS);
    try {
      const turn = await o.investigations.ask(id, message, { onEvent: (event) => send(event.type, eventData(id, event)) });
      send('result', { turn });
      await chargeTurn(turn, o);
    } catch (error) {
      const { apiError, isBug } = toApiError(error);
      if (isBug) o.log(`POST /v1/investigations/${id}/turns failed after the stream opened: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      send('error', apiError.body());
    } finally {
      clearInterval(heartbeat);
      await out.flush();
    }
  });
}

/**
 * A turn that called providers charges their tokens to the client's daily
 * ceiling, as a run does (T-1); the offline planner's are estimates of its own
 * reading and spend nothing.
 */
export async function chargeTurn(turn: TurnView, o: Pick<TurnStreamOptions, 'limiter' | 'clientKey' | 'now' | 'log'>): Promise<void> {
  const tokens = turn.metrics.provider === 'offline' ? 0 : turn.metrics.promptTokens + turn.metrics.completionTokens;
  if (tokens === 0 || o.clientKey === undefined) return;
  await o.limiter.chargeTokens(o.clientKey, tokens, o.now()).catch((error: unknown) => {
    // The turn is done and paid for by the spend guard; an unreachable limiter refuses the NEXT request.
    o.log(`limiter: could not charge ${tokens} tokens for a turn of investigation ${turn.investigationId}: ${error instanceof Error ? error.message : String(error)}`);
  });
}

function eventData(investigationId: string, event: TurnEvent): unknown {
  switch (event.type) {
    case 'tool':
      return { investigationId, ...event.call };
    case 'note':
      return { investigationId, text: event.text };
    case 'provider': {
      const { usage, ...rest } = event.event;
      return {
        investigationId,
        ...rest,
        ...(usage ? { tokensIn: usage.inputTokens.total ?? 0, tokensOut: usage.outputTokens.total ?? 0 } : {}),
      };
    }
  }
}
