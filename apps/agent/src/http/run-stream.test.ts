import { SSEStreamingApi } from 'hono/streaming';
import { describe, expect, it } from 'vitest';
import { sseQueue } from './run-stream.ts';

/** A stream that records each write; `hold` keeps the first write pending until released. */
function recordingStream() {
  const writes: string[] = [];
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let first = true;
  const stream = {
    aborted: false,
    closed: false,
    async write(text: string) {
      writes.push(text);
      if (first) {
        first = false;
        await held;
      }
      return stream;
    },
  };
  return { stream: stream as unknown as SSEStreamingApi, writes, release };
}

/** What hono's own writeSSE writes for one message. */
async function honoText(event: string, data: unknown, id?: string): Promise<string> {
  const out: string[] = [];
  await SSEStreamingApi.prototype.writeSSE.call({ write: async (t: string) => out.push(t) } as unknown as SSEStreamingApi, {
    event,
    data: JSON.stringify(data),
    ...(id === undefined ? {} : { id }),
  });
  return out.join('');
}

describe('sseQueue (ADR-0004)', () => {
  it('sends events that arrive together as one write, in order, in the text hono writes; later ones wait only for the write before', async () => {
    const { stream, writes, release } = recordingStream();
    const out = sseQueue(stream);
    out.send('node', { seq: 1, text: 'a\nb' }, '1');
    out.send('node', { seq: 2 }, '2');
    out.send('provider', { provider: 'offline' });
    await new Promise((resolve) => setImmediate(resolve));
    // The first write is in flight (held): what arrives now is one more write, after it.
    out.send('node', { seq: 3 }, '3');
    out.comment('heartbeat');
    out.send('result', { ok: true });
    release();
    await out.flush();
    expect(writes).toEqual([
      (await honoText('node', { seq: 1, text: 'a\nb' }, '1')) +
        (await honoText('node', { seq: 2 }, '2')) +
        (await honoText('provider', { provider: 'offline' })),
      `${await honoText('node', { seq: 3 }, '3')}: heartbeat\n\n${await honoText('result', { ok: true })}`,
    ]);
  });

  it('drops what is sent to a stream the client left', async () => {
    const { stream, writes, release } = recordingStream();
    release();
    const out = sseQueue(stream);
    (stream as unknown as { aborted: boolean }).aborted = true;
    out.send('node', { seq: 1 }, '1');
    await out.flush();
    expect(writes).toEqual([]);
  });
});
