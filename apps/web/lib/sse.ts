import { createParser } from 'eventsource-parser';

/**
 * Server-Sent Events (`text/event-stream`) read with `eventsource-parser`, the
 * parser the AI SDK uses: by the BFF to consume a run to its end for the
 * no-JavaScript form, and by the console to render a run node by node. It
 * replaced a hand-written parser, whose line-ending and field rules were ours
 * to get right (a lone `\r` at a chunk's end is half of a `\r\n`).
 */
export interface SseMessage {
  readonly event: string;
  readonly data: string;
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
