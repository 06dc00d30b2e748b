import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it, vi } from 'vitest';
import { gatedRunDetail } from './testing/gated-run';
import { stubAgentFetch } from './testing/stub-agent';

/*
 * S-239 (a colleague's black-box audit of the website, 2026-12-07): the console kept no link to its run. The address
 * stayed `/` through "✓ Answered", so a reload, or Back from "Open the run record →", lost the question and its
 * answer, though the run had finished and was listed in /runs. The console now puts the run's id in its address
 * (lib/run-address.ts, with history.replaceState), and the page reads `/?run=<id>` back from the run's record. The browser
 * half (reload and Back) is apps/web/e2e/console-address.spec.ts. The agent is a stubbed fetch.
 */

vi.mock('server-only', () => ({}));
vi.mock('next/headers', () => ({ cookies: async () => ({ get: () => undefined }), headers: async () => new Headers() }));

const { default: ConsolePage } = await import('../app/page');
const { consoleAddress } = await import('../lib/run-address');

const RUN = '5d2f8a61-0c3e-4b7a-9f14-2e6d8c0b1a37';
const QUESTION = 'What is the connection pool ceiling for orders-db?';

const agent = stubAgentFetch();
const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

/** `GET /v1/runs/:id` of the audit's question, answered. */
const answered = (() => {
  const detail = gatedRunDetail(RUN, { sessionOwned: true });
  return {
    ...detail,
    run: {
      ...detail.run,
      question: QUESTION,
      workload: 'postmortem',
      terminal: 'emit',
      outcome: 'answered',
      answer: 'The orders-db pool ceiling is 200 connections.',
      action: null,
    },
  };
})();

/** The agent: this one run, no providers, and nothing else it is asked for. */
function agentWith(run: unknown | null) {
  agent.mockImplementation(async (url) => {
    const path = new URL(String(url)).pathname;
    if (path === '/v1/providers') return json({ providers: [] });
    if (path === `/v1/runs/${RUN}` && run) return json(run);
    if (path.startsWith('/v1/runs/')) return json({ error: { code: 'not_found', message: `run ${path.slice(9)} does not exist.` } }, 404);
    return json({ error: { code: 'internal', message: 'not in this test' } }, 500);
  });
}

async function renderConsole(params: Record<string, string>): Promise<string> {
  const page = ConsolePage({ searchParams: Promise.resolve(params) });
  return renderToStaticMarkup(createElement('main', null, (await page) as never));
}

describe('the console’s address names its run', () => {
  it('once the id is known: the run is added, the rest of the query kept, an earlier refused post’s words dropped', () => {
    expect(consoleAddress('http://web.test/', RUN)).toBe(`/?run=${RUN}`);
    expect(consoleAddress(`http://web.test/?workload=change&error=rate_limited&retryAfter=30&cut=1&q=old&run=earlier#x`, RUN)).toBe(
      `/?workload=change&run=${RUN}#x`,
    );
  });

  it('a new question, with no id yet, names no run', () => {
    expect(consoleAddress(`http://web.test/?run=${RUN}&workload=postmortem`, null)).toBe('/?workload=postmortem');
    expect(consoleAddress(`http://web.test/?run=${RUN}`, null)).toBe('/');
  });
});

describe('loading /?run=<id> (a reload, or Back from the run’s record)', () => {
  it('shows the run again: its question in the box, its answer, and its record a click away', async () => {
    agentWith(answered);
    const html = await renderConsole({ run: RUN });
    expect(html).toMatch(/<textarea[^>]*name="question"[^>]*>([^<]*)<\/textarea>/);
    expect(/<textarea[^>]*name="question"[^>]*>([^<]*)<\/textarea>/.exec(html)?.[1]).toBe(QUESTION);
    expect(html).toContain(`data-run-id="${RUN}"`);
    expect(html).toContain('data-outcome="answered"');
    expect(html).toContain('The orders-db pool ceiling is 200 connections.');
    expect(html).toContain(`href="/runs/${RUN}"`);
    expect(html).toContain('The run you asked here, read back from its record');
    // Its workload is the run's, not the default triage.
    expect(html).toMatch(/<input[^>]*checked=""[^>]*value="postmortem"/);
  });

  it('a run the agent does not have is said so, with where its record would be; the box is left empty', async () => {
    agentWith(null);
    const html = await renderConsole({ run: RUN });
    expect(html).toContain('data-problem="not_found"');
    expect(html).toContain('The run this address names could not be read back.');
    expect(html).toContain(`href="/runs/${RUN}"`);
    expect(html).toMatch(/<textarea[^>]*name="question"[^>]*><\/textarea>/);
  });

  it('without ?run= the console is as it was: no run is read', async () => {
    agentWith(answered);
    const html = await renderConsole({});
    expect(html).not.toContain(`data-run-id="${RUN}"`);
    expect(agent.mock.calls.some(([url]) => String(url).includes('/v1/runs/'))).toBe(false);
  });
});
