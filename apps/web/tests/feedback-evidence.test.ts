import { API_ERRORS, remedyOf } from '@sandscope/api/errors';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it, vi } from 'vitest';
import { gatedRunDetail } from './testing/gated-run';
import { stubAgentFetch } from './testing/stub-agent';

/*
 * "Was this right?" after a black-box audit of the feedback loop (2026-12-08):
 * - S-286: a mark could not say which passage answers, so a right answer from the wrong passage was exported labelled
 *   with that passage. The form posts `evidence` (a passage id or a quotation) to the agent, which matches it.
 * - S-289: saving replaced a colleague's mark without a word. The page now says which mark the save replaced.
 * - S-290: a mark the agent refused read "choose one of the answers offered, and keep the note under 2000 characters"
 *   above the agent's specific reason ("the passage that answers matches no passage …"), as if the answer chosen were at
 *   fault. The agent's reason is said in place of that line.
 * The agent is a stubbed fetch; the cookies are the ones each 303 set, as the browser that posted sends them back.
 */

const jar = vi.hoisted(() => ({ cookies: new Map<string, string>() }));

vi.mock('server-only', () => ({}));
vi.mock('next/headers', () => ({
  cookies: async () => ({ get: (name: string) => (jar.cookies.has(name) ? { value: jar.cookies.get(name)! } : undefined) }),
  headers: async () => new Headers(),
}));

const { POST } = await import('../app/api/runs/[id]/feedback/route');
const { default: RunPage } = await import('../app/runs/[id]/page');
const { REPLACED_MARK_COOKIE } = await import('../lib/replaced-mark');

const RUN = '3f1c2a9e-5b7d-4e21-9a0c-1d2e3f4a5b6c';
const OTHER_RUN = '9a0c1d2e-3f4a-4b6c-8f1c-2a9e5b7d4e21';
const POOL_STEPS = 'runbook-connection-pool-exhaustion#confirm-the-pool-is-saturated';
const agent = stubAgentFetch();
const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

const mark = (fields: Record<string, string>, run = RUN) =>
  POST(
    new Request(`http://web.test/api/runs/${run}/feedback`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    }),
    { params: Promise.resolve({ id: run }) },
  );

/** "Was this right?" on the page the 303 leads to, rendered with the cookies it set and the run carrying `feedback`. */
async function formAfter(res: Response, feedback: unknown = null, run = RUN): Promise<string> {
  const location = new URL(res.headers.get('location') ?? '', 'http://web.test');
  jar.cookies = new Map(
    res.headers
      .getSetCookie()
      .map((c) => c.split(';')[0]!)
      .map((c) => [c.slice(0, c.indexOf('=')), c.slice(c.indexOf('=') + 1)] as [string, string])
      .filter(([, value]) => value !== ''),
  );
  try {
    agent.mockResolvedValue(json({ ...gatedRunDetail(run, { sessionOwned: false }), feedback }));
    const page = RunPage({ params: Promise.resolve({ id: run }), searchParams: Promise.resolve(Object.fromEntries(location.searchParams)) });
    const html = renderToStaticMarkup(createElement('main', null, (await page) as never));
    return html.slice(html.indexOf('id="feedback"'));
  } finally {
    jar.cookies = new Map();
  }
}

const saved = (feedback: Record<string, unknown>, replaced: Record<string, unknown> | null) =>
  json({ feedback: { runId: RUN, evidence: null, ...feedback }, cache: null, replaced });

describe('a mark names the passage that answers (S-286)', () => {
  it('posts the passage as typed to the agent, and shows the one the mark names', async () => {
    agent.mockResolvedValue(saved({ label: 'wrong-answer', note: 'steps are in the runbook', evidence: POOL_STEPS, createdAt: '2026-12-08T10:00:00Z' }, null));
    const res = await mark({ label: 'wrong-answer', note: 'steps are in the runbook', evidence: '  Connect to the pooler admin console ' });
    expect(res.status).toBe(303);
    const [, init] = agent.mock.calls[0]!;
    expect(JSON.parse(String(init?.body))).toEqual({
      label: 'wrong-answer',
      note: 'steps are in the runbook',
      evidence: 'Connect to the pooler admin console',
    });
    const form = await formAfter(res, { label: 'wrong-answer', note: 'steps are in the runbook', evidence: POOL_STEPS, createdAt: '2026-12-08T10:00:00Z' });
    expect(form).toContain(`The passage that answers: <code>${POOL_STEPS}</code>`);
    expect(form).toMatch(new RegExp(`<input [^>]*name="evidence" [^>]*value="${POOL_STEPS}"`));
  });

  it('a passage the agent matches to none comes back in its box, with the agent’s reason and not the site’s generic line (S-290)', async () => {
    const reason =
      'the passage that answers matches no passage: "the pooler admin consoel"; the passage sharing most of its words is runbook-connection-pool-exhaustion#confirm-the-pool-is-saturated (a typo, or a word the page spells otherwise?). Nothing was marked: name the passage by its id, or quote a sentence only it holds.';
    agent.mockResolvedValue(json({ error: { code: 'invalid_request', message: `${reason} ${API_ERRORS.invalid_request.remedy}` } }, 400));
    const res = await mark({ label: 'wrong-answer', note: 'wrong section', evidence: 'the pooler admin consoel' });
    expect(res.headers.get('location')).toBe(
      `/runs/${RUN}?error=invalid_request&during=feedback&label=wrong-answer&evidence=the+pooler+admin+consoel&note=wrong+section#feedback`,
    );
    const form = await formAfter(res);
    expect(form).toMatch(/<input [^>]*name="evidence" [^>]*value="the pooler admin consoel"/);
    expect(form).toContain('>wrong section</textarea>');
    expect(form).toContain(
      `The mark was not saved.<span class="problem-message"> The agent says: “<bdi>${reason.replaceAll('"', '&quot;')} ${remedyOf('invalid_request', 'web')}</bdi>”`,
    );
    expect(form).not.toContain('choose one of the answers offered');
  });

  it('a post the website refuses itself, with no reason from the agent, keeps the site’s line', async () => {
    const res = await mark({ label: 'meh', evidence: 'x' });
    expect(agent).not.toHaveBeenCalled();
    const form = await formAfter(res);
    expect(form).toContain('The mark was not saved: choose one of the answers offered');
    expect(form).toMatch(/<input [^>]*name="evidence" [^>]*value="x"/);
  });
});

describe('a save says which mark it replaced (S-289)', () => {
  it('a colleague’s earlier mark: its answer, note, passage and time, on the page the save leads to', async () => {
    agent.mockResolvedValue(
      saved(
        { label: 'wrong-answer', note: null, createdAt: '2026-12-08T10:05:00Z' },
        { label: 'right', note: 'good', evidence: POOL_STEPS, createdAt: '2026-12-08T01:02:00Z' },
      ),
    );
    const res = await mark({ label: 'wrong-answer' });
    expect(res.headers.getSetCookie().some((c) => c.startsWith(`${REPLACED_MARK_COOKIE}=`) && !c.startsWith(`${REPLACED_MARK_COOKIE}=;`))).toBe(true);
    const form = await formAfter(res, { label: 'wrong-answer', note: null, evidence: null, createdAt: '2026-12-08T10:05:00Z' });
    const notice = /<p class="notice feedback-saved">(.*?)<\/p>/.exec(form)?.[1] ?? '';
    expect(notice.replace(/<[^>]+>/g, '')).toBe(
      `Saved. This answer is no longer served from the cache to anyone who asks alike. It replaced the earlier mark: Right, note “good”, the passage that answers ${POOL_STEPS}, made 2026-12-08 01:02:00 UTC.`,
    );
  });

  it('a first mark replaced nothing and says nothing of it; the cookie is cleared', async () => {
    agent.mockResolvedValue(saved({ label: 'right', note: null, createdAt: '2026-12-08T10:05:00Z' }, null));
    const res = await mark({ label: 'right' });
    expect(res.headers.getSetCookie()).toContain(`${REPLACED_MARK_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax`);
    const form = await formAfter(res, { label: 'right', note: null, evidence: null, createdAt: '2026-12-08T10:05:00Z' });
    expect(form).toContain('<p class="notice feedback-saved">Saved.</p>');
  });

  it('the words are for the run saved: another run’s page does not show them', async () => {
    agent.mockResolvedValue(
      saved({ label: 'right', note: null, createdAt: '2026-12-08T10:05:00Z' }, { label: 'right', note: 'x', createdAt: '2026-12-08T01:02:00Z' }),
    );
    const res = await mark({ label: 'right' });
    const form = await formAfter(res, { label: 'right', note: null, evidence: null, createdAt: '2026-12-08T10:05:00Z' }, OTHER_RUN);
    expect(form).not.toContain('It replaced the earlier mark');
  });
});
