import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it, vi } from 'vitest';
import { stubAgentFetch } from './testing/stub-agent';

/*
 * What the website shows of a turn that ended without an answer (S-270), and of a log whose lines end in a bare \r
 * (S-272), rendered from stubbed agent replies as the server renders the pages.
 */

vi.mock('server-only', () => ({}));
vi.mock('next/headers', () => ({ cookies: async () => ({ get: () => undefined }), headers: async () => new Headers() }));

const { default: InvestigationPage } = await import('../app/investigations/[id]/page');
const { default: InvestigationFilePage } = await import('../app/investigations/[id]/files/[...path]/page');

const INVESTIGATION = 'c4e1b2a3-7d6f-4e5a-9b8c-0d1e2f3a4b5c';
const AT = '2026-12-08T10:00:00.000Z';
const agent = stubAgentFetch();
const json = (body: unknown) => new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
const html = async (page: Promise<unknown>) => renderToStaticMarkup(createElement('main', null, (await page) as never));
const none = Promise.resolve({});

describe('S-270: a question its turn never answered says so, and to ask again', () => {
  it('under the question, with the reason the agent gives; an answered question has no such notice', async () => {
    const reason = 'The agent answering it shut down (a restart or a deployment) before the answer was ready.';
    agent.mockResolvedValue(
      json({
        investigation: { id: INVESTIGATION, title: 'checkout 502s', createdAt: AT, updatedAt: AT },
        files: [],
        messages: [
          {
            id: 1,
            role: 'user',
            text: 'why did payments-api time out?',
            result: null,
            metrics: null,
            createdAt: AT,
            interrupted: { code: 'shutting_down', reason },
          },
          { id: 2, role: 'user', text: 'and when did it start?', result: null, metrics: null, createdAt: AT },
        ],
      }),
    );
    const page = await html(InvestigationPage({ params: Promise.resolve({ id: INVESTIGATION }), searchParams: none }));
    const notices = [...page.matchAll(/<p class="notice notice-warn turn-interrupted" data-interrupted="([^"]+)">(.*?)<\/p>/g)].map((m) => [m[1], m[2]]);
    expect(notices).toEqual([['shutting_down', `Not answered: ${reason} Ask it again below.`]]);
    // Under the question it belongs to.
    expect(page.indexOf('why did payments-api time out?')).toBeLessThan(page.indexOf('Not answered:'));
    expect(page.indexOf('Not answered:')).toBeLessThan(page.indexOf('and when did it start?'));
  });
});

describe('S-272: the file view numbers a CR-only log as the agent cites it', () => {
  it('one row per line, so a citation of line 3 is line 3 here, not past the end of a one-line file', async () => {
    const lines = ['03:11:58 INFO checkout started', '03:12:01 ERROR upstream timeout', '03:12:02 ERROR upstream timeout', '03:13:30 INFO recovered'];
    const content = `${lines.join('\r')}\r`;
    agent.mockResolvedValue(json({ file: { path: 'mac.log', sizeBytes: content.length, status: 'ok', error: null, createdAt: AT, content } }));
    const page = await html(
      InvestigationFilePage({ params: Promise.resolve({ id: INVESTIGATION, path: ['mac.log'] }), searchParams: Promise.resolve({ lines: '2-3' }) }),
    );
    const rows = [...page.matchAll(/<tr id="L(\d+)"[^>]*>.*?<code>(.*?)<\/code>/g)].map((m) => [Number(m[1]), m[2]]);
    expect(rows).toEqual(lines.map((l, i) => [i + 1, l]));
    expect([...page.matchAll(/<tr id="L(\d+)" class="cited"/g)].map((m) => Number(m[1]))).toEqual([2, 3]);
    expect(page).toContain('4 lines');
    expect(page).not.toContain('past the end of this file');
  });
});
