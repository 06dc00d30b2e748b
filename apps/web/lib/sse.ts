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
