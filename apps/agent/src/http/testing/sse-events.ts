/** One Server-Sent Event as a test reads it. */
export interface SseEvent {
  readonly event: string;
  readonly data: unknown;
}

/** Parses a whole `text/event-stream` body (comments and ids ignored; data lines joined, then JSON-parsed). */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split(/\n\n+/)) {
    let event = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('event: ')) event = line.slice(7);
      else if (line.startsWith('data: ')) data.push(line.slice(6));
    }
    if (data.length > 0) events.push({ event, data: JSON.parse(data.join('\n')) as unknown });
  }
  return events;
}

/**
 * Reads a streaming response event by event, calling `onEvent` as each arrives
 * (so a test can act mid-run), and resolves with all of them when the stream ends.
 */
export async function readSse(response: Response, onEvent?: (event: SseEvent) => void | Promise<void>): Promise<SseEvent[]> {
  if (!response.body) return [];
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  const events: SseEvent[] = [];
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      for (const event of parseSse(`${block}\n\n`)) {
        events.push(event);
        await onEvent?.(event);
      }
    }
  }
  return events;
}
