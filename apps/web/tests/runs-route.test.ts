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
const { explain } = await import('../lib/problems');
const { consoleRefusal, MAX_RUN_BODY_BYTES } = await import('../lib/run-request');

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
