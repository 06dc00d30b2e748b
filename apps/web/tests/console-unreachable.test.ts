import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LiveRunView, type LiveRun, streamRun } from '../app/_console/console-form';

/*
 * S-241 (a colleague's black-box audit of the website, 2026-12-07): with the website and the agent stopped, Ask in an
 * open console said "The run's stream ended before a result arrived / The question was not run. / … The run record may
 * still be complete … stream_broken · HTTP 502": the browser had a connection refused, no HTTP status at all, and "not
 * run" contradicted "may still be complete". A fetch that got no response is now told apart from a stream that broke
 * after the website answered. The website is a stubbed fetch.
 */

afterEach(() => {
  vi.unstubAllGlobals();
});

const ASK = { question: 'What is the connection pool ceiling for orders-db? ', workload: 'triage', failProviders: [] } as const;

/** What the console shows of a finished ask. */
const shown = (live: LiveRun) => renderToStaticMarkup(createElement(LiveRunView, { live, running: false }));

async function askWith(fetch: () => Promise<Response>): Promise<{ last: LiveRun; states: LiveRun[] }> {
  vi.stubGlobal('fetch', vi.fn(fetch));
  const states: LiveRun[] = [];
  const last = await streamRun(ASK, new AbortController().signal, (s) => states.push(s));
  return { last, states };
}

describe('the website cannot be reached at all', () => {
  it('is said so, with no HTTP status, and the question kept', async () => {
    // What a browser's fetch does on a refused connection: it rejects with a TypeError, and there is no response.
    const { last } = await askWith(() => Promise.reject(new TypeError('Failed to fetch')));
    expect(last.problem).toEqual({ code: 'website_unreachable', status: 0 });
    expect(last.done).toBe(true);
    expect(last.asked).toBe('What is the connection pool ceiling for orders-db?');
    const html = shown(last);
    expect(html).toContain('data-problem="website_unreachable"');
    expect(html).toContain('The website could not be reached');
    expect(html).toContain('Your question is still in the box');
    expect(html).not.toContain('HTTP');
    expect(html).not.toContain('stream_broken');
    expect(html).not.toContain('The question was not run.');
  });

  it('a question the person stopped watching is no problem', async () => {
    const { last } = await askWith(() => Promise.reject(new DOMException('The operation was aborted.', 'AbortError')));
    expect(last.problem).toBeNull();
  });
});

describe('the stream breaks after the website answered', () => {
  /** A 200 event stream that sends `sent` and then fails. */
  const breaking = (sent: string) => () =>
    Promise.resolve(
      new Response(
        new ReadableStream<Uint8Array>({
          // `sent` is read before the break: an error in start() would discard it unread.
          pull(controller) {
            if (sent) {
              controller.enqueue(new TextEncoder().encode(sent));
              sent = '';
            } else controller.error(new TypeError('network error'));
          },
        }),
        { status: 200, headers: { 'content-type': 'text/event-stream' } },
      ),
    );

  it('before the run had an id: stream_broken, said maybe started, not “not run”, with no invented HTTP 502', async () => {
    const { last } = await askWith(breaking(''));
    expect(last.problem).toEqual({ code: 'stream_broken', status: 0 });
    const html = shown(last);
    expect(html).toContain('The stream broke before the run was given an id: it may have started.');
    expect(html).not.toContain('The question was not run.');
    expect(html).not.toContain('HTTP 502');
  });

  it('after it had one: the run started but did not finish, and its record is linked', async () => {
    const node = { runId: 'r-1', seq: 1, node: 'classify', kind: 'start', at: '2026-12-07T10:00:00.000Z', data: {} };
    const { last } = await askWith(breaking(`event: node\ndata: ${JSON.stringify(node)}\n\n`));
    expect(last.runId).toBe('r-1');
    expect(last.problem?.code).toBe('stream_broken');
    const html = shown(last);
    expect(html).toContain('The run started but did not finish.');
    expect(html).toContain('href="/runs/r-1"');
  });
});

describe('what the panel says, for a state already reached', () => {
  it('a stream that broke before any id is never “The question was not run.”', () => {
    const live: LiveRun = { asked: 'q', runId: null, nodes: [], providers: [], result: null, problem: { code: 'stream_broken', status: 0 }, done: true };
    expect(shown(live)).not.toContain('The question was not run.');
  });
});
