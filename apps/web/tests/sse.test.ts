import { describe, expect, it } from 'vitest';
import { readSse, type SseMessage } from '../lib/sse';

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
