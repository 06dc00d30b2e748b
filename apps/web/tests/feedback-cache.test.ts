import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it, vi } from 'vitest';
import { gatedRunDetail } from './testing/gated-run';
import { stubAgentFetch } from './testing/stub-agent';

/*
 * S-264 (a black-box audit): a wrong-answer mark the agent could not evict from its cache (Redis down) came back
 * "Saved. This answer is no longer served from the cache to anyone who asks alike." The agent now says what became of
 * the cached answer (`cache` in its response, docs/API.md); the mark's door carries it to the run page, which says the
 * answer could not be removed and will not be served all the same. The agent is a stubbed fetch.
 */

vi.mock('server-only', () => ({}));
vi.mock('next/headers', () => ({ cookies: async () => ({ get: () => undefined }), headers: async () => new Headers() }));

const { POST } = await import('../app/api/runs/[id]/feedback/route');
const { default: RunPage } = await import('../app/runs/[id]/page');

const RUN = '3f1c2a9e-5b7d-4e21-9a0c-1d2e3f4a5b6c';
const agent = stubAgentFetch();
const json = (body: unknown) => new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
const MARK = { label: 'wrong-answer', note: null, createdAt: '2026-12-08T10:00:00Z' } as const;

const markWrong = () =>
  POST(
    new Request(`http://web.test/api/runs/${RUN}/feedback`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ label: 'wrong-answer' }).toString(),
    }),
    { params: Promise.resolve({ id: RUN }) },
  );

/** "Was this right?" on the page the 303 leads to, the run now carrying its mark. */
async function savedNotice(res: Response): Promise<string> {
  const location = new URL(res.headers.get('location') ?? '', 'http://web.test');
  agent.mockResolvedValue(json({ ...gatedRunDetail(RUN, { sessionOwned: false }), feedback: MARK }));
  const page = RunPage({ params: Promise.resolve({ id: RUN }), searchParams: Promise.resolve(Object.fromEntries(location.searchParams)) });
  const html = renderToStaticMarkup(createElement('main', null, (await page) as never));
  return /<p class="notice feedback-saved">(.*?)<\/p>/.exec(html)?.[1] ?? '';
}

describe('a wrong-answer mark says what became of the cached answer', () => {
  it('removed: no longer served', async () => {
    agent.mockResolvedValue(
      json({ feedback: { runId: RUN, ...MARK }, cache: { removed: true, message: 'Its answer is no longer served from the semantic cache.' } }),
    );
    const res = await markWrong();
    expect(res.headers.get('location')).toBe(`/runs/${RUN}?marked=1#feedback`);
    expect(await savedNotice(res)).toBe('Saved. This answer is no longer served from the cache to anyone who asks alike.');
  });

  it('not removed (the cache unreachable): says so, and that it will not be served all the same', async () => {
    agent.mockResolvedValue(json({ feedback: { runId: RUN, ...MARK }, cache: { removed: false, message: 'The cached answer could not be removed now …' } }));
    const res = await markWrong();
    expect(res.headers.get('location')).toBe(`/runs/${RUN}?marked=1&cache=not-removed#feedback`);
    const notice = await savedNotice(res);
    expect(notice).toContain('Saved. The cached answer could not be removed now (the cache was unreachable or refused)');
    expect(notice).toContain('it will not be served again to anyone who asks alike');
    expect(notice).not.toContain('no longer served from the cache');
  });

  it('an agent that does not say (no `cache`) is read as before', async () => {
    agent.mockResolvedValue(json({ feedback: { runId: RUN, ...MARK } }));
    const res = await markWrong();
    expect(res.headers.get('location')).toBe(`/runs/${RUN}?marked=1#feedback`);
  });
});
