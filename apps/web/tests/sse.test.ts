import { describe, expect, it } from 'vitest';
import { mapSse, readSse, type SseMessage } from '../lib/sse';

function streamOf(chunks: readonly string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const c of chunks) controller.enqueue(encoder.encode(c));
      controller.close();
    },
  });
}

async function read(chunks: readonly string[]): Promise<SseMessage[]> {
  const out: SseMessage[] = [];
  await readSse(streamOf(chunks), (m) => out.push(m));
  return out;
}

describe('readSse (eventsource-parser)', () => {
  it('joins messages split across chunks, CRLF and a \\r split from its \\n, multi-line data; skips comments', async () => {
    expect(await read(['event: node\r', '\ndata: {"a":', '1}\r\n\r\n: keep-alive\n\ndata: one\ndata: two\n\n'])).toEqual([
      { event: 'node', data: '{"a":1}' },
      { event: 'message', data: 'one\ntwo' },
    ]);
  });

  it('a final message whose blank line never came still counts', async () => {
    expect(await read(['event: result\ndata: {"done":true}'])).toEqual([{ event: 'result', data: '{"done":true}' }]);
  });

  it('a multi-byte character split between chunks arrives whole', async () => {
    const bytes = new TextEncoder().encode('data: café\n\n');
    const split = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice(0, 10));
        controller.enqueue(bytes.slice(10));
        controller.close();
      },
    });
    const out: SseMessage[] = [];
    await readSse(split, (m) => out.push(m));
    expect(out).toEqual([{ event: 'message', data: 'café' }]);
  });
});

describe('mapSse (the BFF passing a run on to the console)', () => {
  const text = (body: ReadableStream<Uint8Array>) => new Response(body).text();

  it('writes each message as it read it — event, every data line, id — and keeps comments and retry', async () => {
    const agent = 'event: node\ndata: {"a":1}\nid: 3\n\n: heartbeat\n\nretry: 5000\n\ndata: one\ndata:  two\n\n';
    expect(await text(mapSse(streamOf([agent]), (m) => m))).toBe(agent);
  });

  it('hands `map` each message once, whole, however the bytes were cut; a final message cut off still counts', async () => {
    const seen: SseMessage[] = [];
    const out = mapSse(streamOf(['event: err', 'or\r\ndata: {"x":', '1}\r\n\r\nevent: result\ndata: {}']), (m) => {
      seen.push(m);
      return m.event === 'error' ? { ...m, data: '{"x":2}' } : m;
    });
    expect(await text(out)).toBe('event: error\ndata: {"x":2}\n\nevent: result\ndata: {}\n\n');
    expect(seen).toEqual([
      { event: 'error', data: '{"x":1}' },
      { event: 'result', data: '{}' },
    ]);
  });
});
