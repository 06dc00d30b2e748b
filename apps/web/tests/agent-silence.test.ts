import { afterEach, describe, expect, it, vi } from 'vitest';
import { stubAgentFetch } from './testing/stub-agent';

/*
 * S-227 (a colleague's black-box audit of the website, 2026-12-07): with the agent hung (`kill -STOP`), the console
 * showed "Running…" and went on showing it, while /runs gave up after 15 s naming the agent. A run's stream now has a
 * limit on silence — no event, not even the agent's 15-second heartbeat — which a slow run that is still streaming
 * never reaches.
 */

vi.mock('server-only', () => ({}));
vi.mock('next/headers', () => ({ cookies: async () => ({ get: () => undefined }), headers: async () => new Headers() }));

const { POST } = await import('../app/api/runs/route');
const { withMessage } = await import('../app/_console/console-form');
const { AGENT_SILENCE_MS, readSse, SilentStream, silenceLimit } = await import('../lib/sse');
type SseMessage = import('../lib/sse').SseMessage;

const agent = stubAgentFetch();
afterEach(() => {
  vi.useRealTimers();
});

const RUN = '6f1c2b9e-3d4a-4c5b-8e7f-0a1b2c3d4e5f';
const node = (seq: number) =>
  `event: node\ndata: ${JSON.stringify({ runId: RUN, seq, node: 'classify', kind: 'start', at: '2026-12-07T08:00:00.000Z', data: {} })}\nid: ${seq}\n\n`;
const encoder = new TextEncoder();

/** The agent's stream: `parts` written `every` ms apart, then (unless `end`) nothing, ever. */
function agentStream(parts: readonly string[], every: number, end = false) {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (i < parts.length) {
        if (i > 0) await new Promise((r) => setTimeout(r, every));
        controller.enqueue(encoder.encode(parts[i++]!));
      } else if (end) controller.close();
      else await new Promise(() => {});
    },
  });
}
const opened = (body: ReadableStream<Uint8Array>) => new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });

const post = (json: boolean) =>
  new Request('http://web.test/api/runs', {
    method: 'POST',
    headers: { 'content-type': json ? 'application/json' : 'application/x-www-form-urlencoded' },
    body: json ? JSON.stringify({ question: 'What is the orders-db pool ceiling?' }) : 'question=What+is+the+orders-db+pool+ceiling%3F&workload=triage',
  });

/** A run's whole response, read as the console reads it, with the fake clock moved on as it waits. */
async function consoleReads(res: Response): Promise<ReturnType<typeof withMessage>> {
  let state: ReturnType<typeof withMessage> = { asked: 'q', runId: null, nodes: [], providers: [], result: null, problem: null, done: false };
  const read = readSse(res.body!, (m: SseMessage) => {
    state = withMessage(state, m);
  });
  let finished = false;
  read.finally(() => {
    finished = true;
  });
  for (let i = 0; i < 40 && !finished; i++) await vi.advanceTimersByTimeAsync(AGENT_SILENCE_MS / 4);
  await read;
  return state;
}

describe('a hung agent’s run ends, said as a timeout', () => {
  it('the enhanced console: a stream that goes silent after its first event ends with agent_timeout', async () => {
    vi.useFakeTimers();
    agent.mockResolvedValue(opened(agentStream([node(1)], 0)));
    const state = await consoleReads(await POST(post(true)));
    expect(state.nodes).toHaveLength(1);
    expect(state.problem).toMatchObject({ code: 'agent_timeout' });
  });

  it('an agent that never opens the run: the console gets agent_timeout, not a wait of the run’s 5 minutes', async () => {
    vi.useFakeTimers();
    agent.mockImplementation(
      (_url, init) =>
        new Promise((_, reject) => {
          init?.signal?.addEventListener('abort', () => reject(init.signal!.reason));
        }),
    );
    const answered = POST(post(true));
    await vi.advanceTimersByTimeAsync(AGENT_SILENCE_MS + 1);
    const res = await answered;
    expect(res.status).toBe(504);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('agent_timeout');
  });

  it('without JavaScript: back to the run with agent_timeout', async () => {
    vi.useFakeTimers();
    agent.mockResolvedValue(opened(agentStream([node(1)], 0)));
    const answered = POST(post(false));
    for (let i = 0; i < 8; i++) await vi.advanceTimersByTimeAsync(AGENT_SILENCE_MS / 4);
    const res = await answered;
    expect(res.headers.get('location')).toMatch(new RegExp(`^/runs/${RUN}\\?error=agent_timeout`));
  });
});

describe('a slow run that is still streaming is not cut', () => {
  it('heartbeats every 15 s for longer than the limit, then the result: no problem', async () => {
    vi.useFakeTimers();
    const result = `event: result\ndata: ${JSON.stringify({ runId: RUN })}\n\n`;
    const beats = Array.from({ length: 8 }, () => ': heartbeat\n\n');
    agent.mockResolvedValue(opened(agentStream([node(1), ...beats, result], 15_000, true)));
    const state = await consoleReads(await POST(post(true)));
    expect(8 * 15_000).toBeGreaterThan(AGENT_SILENCE_MS);
    expect(state.problem?.code).not.toBe('agent_timeout');
    expect(state.nodes).toHaveLength(1);
  });

  it('silenceLimit passes bytes on, and fails with SilentStream only after the limit with nothing', async () => {
    vi.useFakeTimers();
    const reader = silenceLimit(agentStream(['a', 'b'], 900), 1000).getReader();
    expect((await reader.read()).value).toEqual(encoder.encode('a'));
    const second = reader.read();
    await vi.advanceTimersByTimeAsync(900);
    expect((await second).value).toEqual(encoder.encode('b'));
    const third = reader.read();
    const failed = expect(third).rejects.toBeInstanceOf(SilentStream);
    await vi.advanceTimersByTimeAsync(1000);
    await failed;
  });
});
