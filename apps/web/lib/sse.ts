/**
 * A minimal Server-Sent Events parser (the `text/event-stream` framing): used by
 * the BFF to consume a run to its end for the no-JavaScript form, and by the
 * console to render a run node by node. Pure; no I/O.
 */

export interface SseMessage {
  readonly event: string;
  readonly data: string;
}

/** Feed text as it arrives; complete messages come back, partial ones wait for more. */
export class SseParser {
  private buffer = '';
  private event = '';
  private data: string[] = [];

  push(text: string): SseMessage[] {
    this.buffer += text;
    const out: SseMessage[] = [];
    let newline: number;
    while ((newline = this.nextLineEnd()) >= 0) {
      let line = this.buffer.slice(0, newline);
      this.buffer = this.buffer.slice(newline + (this.buffer[newline] === '\r' && this.buffer[newline + 1] === '\n' ? 2 : 1));
      if (line.endsWith('\r')) line = line.slice(0, -1);
      if (line === '') {
        if (this.data.length > 0 || this.event) out.push({ event: this.event || 'message', data: this.data.join('\n') });
        this.event = '';
        this.data = [];
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'event') this.event = value;
      else if (field === 'data') this.data.push(value);
    }
    return out;
  }

  /** What is left when the stream closes: a final message without its blank line still counts. */
  end(): SseMessage[] {
    const out = this.buffer ? this.push('\n\n') : [];
    if (this.data.length > 0) out.push({ event: this.event || 'message', data: this.data.join('\n') });
    this.data = [];
    this.event = '';
    return out;
  }

  private nextLineEnd(): number {
    const n = this.buffer.indexOf('\n');
    const r = this.buffer.indexOf('\r');
    if (r >= 0 && r === this.buffer.length - 1) return n; // a lone trailing \r may be half of \r\n
    if (n < 0) return r;
    if (r < 0) return n;
    return Math.min(n, r);
  }
}

/** Read a byte stream to its end, handing each message over as it completes. */
export async function readSse(body: ReadableStream<Uint8Array>, onMessage: (message: SseMessage) => void): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    for (const m of parser.push(decoder.decode(value, { stream: true }))) onMessage(m);
  }
  for (const m of parser.push(decoder.decode())) onMessage(m);
  for (const m of parser.end()) onMessage(m);
}
