/** One Server-Sent Event as a test reads it. */
export interface SseEvent {
  /** The `id:` line: what a client resumes from with Last-Event-ID. */
  readonly id?: string;
  readonly event: string;
  readonly data: unknown;
}

/** Parses a whole `text/event-stream` body (comments ignored; data lines joined, then JSON-parsed). */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split(/\n\n+/)) {
    let event = 'message';
    let id: string | undefined;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('event: ')) event = line.slice(7);
      else if (line.startsWith('id: ')) id = line.slice(4);
      else if (line.startsWith('data: ')) data.push(line.slice(6));
    }
    if (data.length > 0) events.push({ ...(id === undefined ? {} : { id }), event, data: JSON.parse(data.join('\n')) as unknown });
  }
  return events;
}

/** The events of a stream as they arrive; leaving the loop early cancels the stream (the client hangs up). */
async function* sseEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<SseEvent> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += value;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        yield* parseSse(`${block}\n\n`);
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** A stream's events, ids included; with `limit`, only the first `limit` of them, and the connection dropped. */
export async function readSseEvents(body: ReadableStream<Uint8Array>, limit?: number): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  if (limit === 0) return events;
  for await (const event of sseEvents(body)) {
    events.push(event);
    if (events.length === limit) break;
  }
  return events;
}

/**
 * Reads a streaming response event by event, calling `onEvent` as each arrives
 * (so a test can act mid-run), and resolves with all of them when the stream ends.
 */
export async function readSse(response: Response, onEvent?: (event: SseEvent) => void | Promise<void>): Promise<SseEvent[]> {
  if (!response.body) return [];
  const events: SseEvent[] = [];
  for await (const event of sseEvents(response.body)) {
    events.push(event);
    await onEvent?.(event);
  }
  return events;
}
