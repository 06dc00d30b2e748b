import { API_ERROR_CODES, API_ERRORS, remedyOf } from '@sandscope/api/errors';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it, vi } from 'vitest';
import { stubAgentFetch } from './testing/stub-agent';

/*
 * POST /api/runs, the console's door, as the no-JavaScript form posts to it (a black-box test of the website,
 * 2026-12-05): a 2 MB body was read whole and answered "Type a question, pick a workload"; a bad workload emptied
 * the question box. The agent is a stubbed fetch.
 */

// Next resolves these itself; the route's lib/agent.ts is server code, imported here outside Next.
vi.mock('server-only', () => ({}));
vi.mock('next/headers', () => ({ cookies: async () => ({ get: () => undefined }), headers: async () => new Headers() }));

const { POST } = await import('../app/api/runs/route');
const { explain, problemFromStreamEvent } = await import('../lib/problems');
const { LiveRunView, withMessage } = await import('../app/_console/console-form');
const { consoleRefusal, MAX_RUN_BODY_BYTES } = await import('../lib/run-request');
const { REFUSAL_WORDS_COOKIE, withRefusalWords } = await import('../lib/refusal-words');
const { readSse } = await import('../lib/sse');
type SseMessage = import('../lib/sse').SseMessage;

const agent = stubAgentFetch();

const formPost = (fields: Record<string, string>) =>
  new Request('http://web.test/api/runs', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });

/** The redirect's query, as the console page reads it. */
function redirectedTo(res: Response): URLSearchParams {
  expect(res.status).toBe(303);
  const location = res.headers.get('location') ?? '';
  expect(location.startsWith('/?')).toBe(true);
  return new URLSearchParams(location.slice(2));
}

describe('POST /api/runs — a body over the door’s limit', () => {
  it('a 2 MB form post is refused as too large, naming the limit, without calling the agent', async () => {
    const q = redirectedTo(await POST(formPost({ question: 'x'.repeat(2_000_000), workload: 'triage' })));
    expect(q.get('error')).toBe('payload_too_large');
    expect(agent).not.toHaveBeenCalled();
    expect(explain({ code: 'payload_too_large' }).title).toBe('The request is too large');
    expect(consoleRefusal('payload_too_large')).toContain(`${MAX_RUN_BODY_BYTES / 1024} KB`);
  });

  it('a body with no Content-Length is counted as it arrives', async () => {
    const chunk = new TextEncoder().encode(`question=${'x'.repeat(32 * 1024)}`);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 4; i++) controller.enqueue(chunk);
        controller.close();
      },
    });
    const request = new Request('http://web.test/api/runs', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(redirectedTo(await POST(request)).get('error')).toBe('payload_too_large');
  });

  it('the enhanced console’s JSON gets a 413 problem that says the limit', async () => {
    const res = await POST(
      new Request('http://web.test/api/runs', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ question: 'x'.repeat(2_000_000) }),
      }),
    );
    expect(res.status).toBe(413);
    const { error } = (await res.json()) as { error: { code: string; detail: string } };
    expect(error.code).toBe('payload_too_large');
    expect(error.detail).toContain('64 KB');
  });
});

describe('POST /api/runs — the question is kept after a refusal', () => {
  it('a bad workload (a hand-made post) comes back with the question typed, and triage picked', async () => {
    const q = redirectedTo(await POST(formPost({ question: 'What is the orders-db pool ceiling?', workload: 'deploy' })));
    expect(q.get('error')).toBe('invalid_request');
    expect(q.get('q')).toBe('What is the orders-db pool ceiling?');
    expect(q.get('workload')).toBe('triage');
    expect(agent).not.toHaveBeenCalled();
  });

  it('a question over the agent’s limit comes back whole, and the page names the limit', async () => {
    const long = `Checkout is slow ${'and the pool is saturated '.repeat(60)}`.trim();
    expect(long.length).toBeGreaterThan(1000);
    agent.mockResolvedValue(
      new Response(
        JSON.stringify({ error: { code: 'question_too_long', message: `The question is ${long.length} characters; the limit is 1000 (MAX_QUESTION_CHARS).` } }),
        { status: 400, headers: { 'content-type': 'application/json' } },
      ),
    );
    const q = redirectedTo(await POST(formPost({ question: long, workload: 'change' })));
    expect(q.get('error')).toBe('question_too_long');
    expect(q.get('q')).toBe(long);
    expect(q.get('workload')).toBe('change');
    expect(explain({ code: 'question_too_long' }).remedy).toMatch(/at most 1,000 characters \(its MAX_QUESTION_CHARS/);
  });

  it('a question too long even for the website is question_too_long, not “type a question”, and is kept', async () => {
    const q = redirectedTo(await POST(formPost({ question: 'y'.repeat(9000), workload: 'triage' })));
    expect(q.get('error')).toBe('question_too_long');
    expect(q.get('q')).toBe('y'.repeat(2000));
    expect(agent).not.toHaveBeenCalled();
  });
});

describe('POST /api/runs — a run that fails after its stream opened', () => {
  const RUN = '6f1c2b9e-3d4a-4c5b-8e7f-0a1b2c3d4e5f';
  const node = { runId: RUN, seq: 1, node: 'classify', kind: 'start', at: '2026-12-07T08:00:00.000Z', data: {} };
  /** The agent's stream as it writes one (run-stream.ts), cut into `size`-byte chunks. */
  function agentStream(text: string, size: number): Response {
    const bytes = new TextEncoder().encode(text);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let at = 0; at < bytes.length; at += size) controller.enqueue(bytes.slice(at, at + size));
        controller.close();
      },
    });
    return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  }
  const failing = (code: string, message: string, before = `event: node\ndata: ${JSON.stringify(node)}\nid: 1\n\n: heartbeat\n\n`) =>
    `${before}event: error\ndata: ${JSON.stringify({ error: { code, message } })}\n\n`;
  const jsonPost = () =>
    new Request('http://web.test/api/runs', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'What is the orders-db pool ceiling?', workload: 'triage' }),
    });

  // The enhanced console got the agent's stream unchanged, so a run cut short by a database outage showed "… check the
  // Postgres server in DATABASE_URL and GET /healthz." — the API's remedy, which every other refusal a page shows had lost.
  it('the enhanced console’s error event ends with the website’s remedy; the other events pass as they came', async () => {
    for (const size of [1, 7, 4096]) {
      agent.mockResolvedValue(agentStream(failing('store_unavailable', API_ERRORS.store_unavailable.remedy), size));
      const res = await POST(jsonPost());
      expect(res.headers.get('content-type')).toContain('text/event-stream');
      const text = await res.text();
      expect(text, `chunks of ${size}`).toContain(`event: node\ndata: ${JSON.stringify(node)}\nid: 1\n\n: heartbeat\n\n`);
      const events: { event: string; data: unknown }[] = [];
      await readSse(new Response(text).body!, (m) => events.push({ event: m.event, data: JSON.parse(m.data) }));
      expect(events, `chunks of ${size}`).toEqual([
        { event: 'node', data: node },
        { event: 'error', data: { error: { code: 'store_unavailable', status: 503, message: remedyOf('store_unavailable', 'web') } } },
      ]);
      expect(text).not.toContain('GET /healthz');
    }
  });

  it('each code’s detail is kept and its API remedy replaced; an event the contract does not know is said so', async () => {
    for (const code of API_ERROR_CODES) {
      agent.mockResolvedValue(agentStream(failing(code, `the run stopped at its third node. ${API_ERRORS[code].remedy}`), 64));
      const events: unknown[] = [];
      await readSse((await POST(jsonPost())).body!, (m) => m.event === 'error' && events.push(JSON.parse(m.data)));
      expect(events, code).toEqual([
        { error: { code, status: API_ERRORS[code].status, message: `the run stopped at its third node. ${remedyOf(code, 'web')}` } },
      ]);
    }
    agent.mockResolvedValue(agentStream(failing('stopped', 'gone'), 64));
    const events: unknown[] = [];
    await readSse((await POST(jsonPost())).body!, (m) => m.event === 'error' && events.push(JSON.parse(m.data)));
    expect(events).toEqual([
      { error: { code: 'bad_gateway', status: 502, detail: 'The run failed, and the agent’s error event does not match the contract.' } },
    ]);
  });

  // S-207: every error event became a Problem of status 500, and the console read it as `problemOf(data, 500)` besides,
  // so a database outage (503) or a run another instance interrupted (409) was labelled "HTTP 500" on the console.
  type LiveRun = Parameters<typeof withMessage>[0];
  const NOTHING_YET: LiveRun = { asked: 'What is the pool ceiling?', runId: null, nodes: [], providers: [], result: null, problem: null, done: false };
  /** The console's view of a run, `messages` read into it as the enhanced console reads its stream, rendered. */
  const consoleView = (messages: readonly SseMessage[]) =>
    renderToStaticMarkup(createElement(LiveRunView, { live: { ...messages.reduce(withMessage, NOTHING_YET), done: true }, running: false }));
  /** The console's view of a run whose agent stream ended in `event: error`, as the BFF passed it on. */
  async function consoleShows(code: string, message: string): Promise<string> {
    agent.mockResolvedValue(agentStream(failing(code, message), 64));
    const messages: SseMessage[] = [];
    await readSse((await POST(jsonPost())).body!, (m) => messages.push(m));
    expect(messages.map((m) => m.event)).toEqual(['node', 'error']);
    return consoleView(messages);
  }

  it('the console labels a run that failed mid-stream with its problem’s status, not “HTTP 500”', async () => {
    const db = await consoleShows('store_unavailable', `the database went away. ${API_ERRORS.store_unavailable.remedy}`);
    expect(db).toContain('<code>store_unavailable</code> · HTTP 503');
    const interrupted = await consoleShows('run_interrupted', `run ${RUN} was taken over. ${API_ERRORS.run_interrupted.remedy}`);
    expect(interrupted).toContain('<code>run_interrupted</code> · HTTP 409');
    expect(interrupted).toContain(explain({ code: 'run_interrupted' }).title);
    for (const html of [db, interrupted]) {
      expect(html).not.toContain('HTTP 500');
      expect(html).toContain('The run started but did not finish: it failed while streaming.');
    }
    // Only the code whose status it is says 500.
    expect(await consoleShows('internal', API_ERRORS.internal.remedy)).toContain('<code>internal</code> · HTTP 500');
  });

  it('an error event whose problem names no status is shown with none, said to have failed while streaming', () => {
    const html = consoleView([{ event: 'error', data: JSON.stringify({ error: { code: 'run_interrupted', message: 'taken over by another instance.' } }) }]);
    expect(html).not.toMatch(/HTTP \d/);
    expect(html).toContain('<code>run_interrupted</code>');
    expect(html).toContain('The run failed while streaming, before it was given an id.');
    expect(html).toContain(explain({ code: 'run_interrupted' }).title);
    expect(html).toContain('The agent says: “<bdi>taken over by another instance.</bdi>”');
    // A status that is no HTTP error status is not shown as one either.
    expect(problemFromStreamEvent({ error: { code: 'internal', status: '500' } }).status).toBe(0);
    expect(problemFromStreamEvent({ error: { code: 'store_unavailable', status: 503 } }).status).toBe(503);
  });

  it('without JavaScript, a failure before the run had an id goes back to the console with the website’s remedy', async () => {
    // The database went away before the first node's event: no run id to show, so the console, its words in a cookie.
    agent.mockResolvedValue(agentStream(failing('store_unavailable', API_ERRORS.store_unavailable.remedy, ''), 16));
    const res = await POST(formPost({ question: 'What is the orders-db pool ceiling?', workload: 'triage' }));
    expect(redirectedTo(res).get('error')).toBe('store_unavailable');
    const cookie = /^([^=]+)=([^;]*)/.exec(res.headers.get('set-cookie') ?? '');
    expect(cookie?.[1]).toBe(REFUSAL_WORDS_COOKIE);
    expect(withRefusalWords({ code: 'store_unavailable', status: 0 }, 'console', cookie?.[2]).message).toBe(remedyOf('store_unavailable', 'web'));
  });
});
