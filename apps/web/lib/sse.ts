import { createParser, type EventSourceParser } from 'eventsource-parser';

/**
 * Server-Sent Events (`text/event-stream`) read with `eventsource-parser`, the
 * parser the AI SDK uses: by the BFF to consume a run to its end for the
 * no-JavaScript form and to pass a run on to the enhanced console (mapSse), and
 * by the console to render a run node by node. It
 * replaced a hand-written parser, whose line-ending and field rules were ours
 * to get right (a lone `\r` at a chunk's end is half of a `\r\n`).
 */
export interface SseMessage {
  readonly event: string;
  readonly data: string;
  /** The message's `id:`, when it had one (the agent numbers a run's node events, for Last-Event-ID). */
  readonly id?: string;
}

/** Read a byte stream to its end, handing each message over as it completes. */
export async function readSse(body: ReadableStream<Uint8Array>, onMessage: (message: SseMessage) => void): Promise<void> {
  const parser = createParser({ onEvent: (e) => onMessage({ event: e.event ?? 'message', data: e.data }) });
  const reader = body.getReader();
  const decoder = new TextDecoder();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parser.feed(decoder.decode(value, { stream: true }));
  }
  // A final message whose blank line was cut off (the connection closed) still counts: end it ourselves.
  parser.feed(`${decoder.decode()}\n\n`);
}

/** One message as a stream writes it, the parser's inverse: `event` (omitted for the default), a `data:` line per line, `id`. */
function sseText({ event, data, id }: SseMessage): string {
  const lines = data
    .split('\n')
    .map((line) => `data: ${line}`)
    .join('\n');
  return `${event === 'message' ? '' : `event: ${event}\n`}${lines}\n${id === undefined ? '' : `id: ${id}\n`}\n`;
}

/**
 * A byte stream passed on message by message as it arrives, each message as `map` makes it; comments (the agent's
 * heartbeat, which keeps a proxy from closing a stream that waits on a slow provider) and `retry:` pass as they came.
 * For the BFF, to say a run's `event: error` the website's way before it reaches the browser (app/api/runs/route.ts).
 */
export function mapSse(body: ReadableStream<Uint8Array>, map: (message: SseMessage) => SseMessage): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  let parser: EventSourceParser | undefined;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      start(out) {
        const send = (text: string) => out.enqueue(encoder.encode(text));
        parser = createParser({
          onEvent: (e) => send(sseText(map({ event: e.event ?? 'message', data: e.data, ...(e.id === undefined ? {} : { id: e.id }) }))),
          onComment: (comment) => send(`: ${comment}\n\n`),
          onRetry: (ms) => send(`retry: ${ms}\n\n`),
        });
      },
      transform(chunk) {
        parser?.feed(decoder.decode(chunk, { stream: true }));
      },
      // As readSse: a final message whose blank line was cut off is ended here, not lost.
      flush() {
        parser?.feed(`${decoder.decode()}\n\n`);
      },
    }),
  );
}

/**
 * How long a run's stream may say nothing at all — no event, not even the heartbeat the agent writes every 15 s
 * (apps/agent/src/http/run-stream.ts, HEARTBEAT_MS) — before the website stops waiting for it (S-227). A run that is
 * slow but alive keeps its stream busy with heartbeats and is never cut by this; a hung agent (a process stopped with
 * SIGSTOP, a deadlock) sends nothing, and the console showed "Running…" until the run's 5-minute limit, or forever.
 */
export const AGENT_SILENCE_MS = 45_000;

/** The stream went silent for longer than the limit: the agent is taken to be hung (S-227). */
export class SilentStream extends Error {
  override readonly name = 'SilentStream';
  constructor(readonly ms: number) {
    super(`The agent sent nothing for ${ms / 1000} seconds.`);
  }
}

/**
 * `body` passed on as it is, failing with SilentStream (and the agent's stream cancelled) once a read waits longer than
 * `ms`. The clock runs only while a reader waits: a reader that is slow itself is not the agent's silence.
 */
export function silenceLimit(body: ReadableStream<Uint8Array>, ms: number): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const silent = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new SilentStream(ms)), ms);
      });
      try {
        const { done, value } = await Promise.race([reader.read(), silent]);
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        controller.error(error);
        if (error instanceof SilentStream) reader.cancel(error).catch(() => {});
      } finally {
        clearTimeout(timer);
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
}
