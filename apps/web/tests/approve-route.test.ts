import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it, vi } from 'vitest';
import { gatedRunDetail } from './testing/gated-run';
import { stubAgentFetch } from './testing/stub-agent';

/*
 * The Approve button's door (POST /api/runs/:id/approve) and the pages it sends the browser to, as a black-box test
 * of the website found them (2026-12-05): approving an unknown run landed on a 404 that, without JavaScript, was
 * blank but for the title; approving a run twice said "Only a run that stopped at the approval gate can be
 * approved". The agent is a stubbed fetch.
 */

vi.mock('server-only', () => ({}));
vi.mock('next/headers', () => ({ cookies: async () => ({ get: () => undefined }), headers: async () => new Headers() }));

const { POST } = await import('../app/api/runs/[id]/approve/route');
const { default: RunPage } = await import('../app/runs/[id]/page');
const { default: RunsPage } = await import('../app/runs/page');

const GATED = '3f1c2a9e-5b7d-4e21-9a0c-1d2e3f4a5b6c';
const APPROVAL = '7b3b4d0f-3bcc-4205-9ed5-c301a864b66e';

const agent = stubAgentFetch();
const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

const approve = (id: string) => POST(new Request(`http://web.test/api/runs/${id}/approve`, { method: 'POST' }), { params: Promise.resolve({ id }) });

/** The agent's 409 wording (apps/agent/src/service/run-service.ts), followed by the code's remedy as the agent sends it. */
const refusal409 = (detail: string) =>
  json({ error: { code: 'not_awaiting_approval', message: `${detail} Only a completed run whose terminal is await_approval can be approved, once.` } }, 409);

/** `GET /v1/runs/:id` of a gated run that an approval has already answered. */
const gatedDetail = gatedRunDetail(GATED, { sessionOwned: true, children: [{ id: APPROVAL, terminal: 'emit', createdAt: '2026-12-05T13:01:00Z' }] });

async function renderPage(page: Promise<unknown>): Promise<string> {
  return renderToStaticMarkup(createElement('main', null, (await page) as never));
}

describe('approving a run the agent does not have', () => {
  it('goes to the runs list with the problem named, not to the run’s own 404', async () => {
    agent.mockResolvedValue(json({ error: { code: 'not_found', message: `run ${GATED} does not exist. Check the id.` } }, 404));
    const res = await approve(GATED);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/runs?error=not_found&during=approval');
    // An id that cannot name a run is not sent to the agent, and ends the same way.
    expect((await approve('no such run')).headers.get('location')).toBe('/runs?error=not_found&during=approval');
  });

  it('the runs list says there was no such run to approve', async () => {
    agent.mockResolvedValue(json({ runs: [], page: 1, pageSize: 20, total: 0 }));
    const html = await renderPage(RunsPage({ searchParams: Promise.resolve({ error: 'not_found', during: 'approval' }) }));
    expect(html).toContain('data-problem="not_found"');
    expect(html).toContain('There is no such run to approve, so nothing was approved.');
  });
});

describe('approving a run twice', () => {
  it('says it was already approved, carrying the run that approval created', async () => {
    agent.mockResolvedValue(refusal409(`run ${GATED} was already approved by run ${APPROVAL}.`));
    const res = await approve(GATED);
    expect(res.headers.get('location')).toBe(`/runs/${GATED}?error=already_approved&during=approval&approvedBy=${APPROVAL}`);
  });

  it('a loser of a race (no id in the message) is already approved too; another 409 keeps its own code', async () => {
    agent.mockResolvedValue(refusal409(`run ${GATED} was already approved.`));
    expect((await approve(GATED)).headers.get('location')).toBe(`/runs/${GATED}?error=already_approved&during=approval`);
    agent.mockResolvedValue(refusal409(`run ${GATED} is completed with terminal emit, not awaiting approval.`));
    expect((await approve(GATED)).headers.get('location')).toBe(`/runs/${GATED}?error=not_awaiting_approval&during=approval`);
  });

  it('the run page says so and links the approving run — never a run the link names that is not its approval', async () => {
    agent.mockImplementation(async () => json(gatedDetail));
    const page = (approvedBy: string) =>
      renderPage(RunPage({ params: Promise.resolve({ id: GATED }), searchParams: Promise.resolve({ error: 'already_approved', approvedBy }) }));
    const html = await page(APPROVAL);
    expect(html).toContain('This run was already approved');
    expect(html).not.toContain('Only a run that stopped at the approval gate');
    expect(html).toContain(`data-approved-by="${APPROVAL}"`);
    expect(html).toContain(`href="/runs/${APPROVAL}"`);
    // A crafted approvedBy is not linked: the page links the child that approved the run instead.
    expect(await page('some-other-run')).toContain(`data-approved-by="${APPROVAL}"`);
  });
});
