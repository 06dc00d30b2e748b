import { API_ERRORS, remedyOf } from '@sandscope/api/errors';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it, vi } from 'vitest';
import { gatedRunDetail } from './testing/gated-run';
import { stubAgentFetch } from './testing/stub-agent';

/*
 * A refused form post's reason, carried to the page the 303 leads to (lib/refusal-words.ts), and the upload door's
 * URL to the agent (lib/agent.ts filePath). A black-box test of the website, with JavaScript off:
 * - S-197: an upload named `../../etc/evil.log` came back "Not found … made against another database" (the URL to the
 *   agent lost its `..` segments), and an upload with no file chosen said "only text files are accepted";
 * - S-197: the console said "Type a question, pick a workload" for a question the agent refused with its reason
 *   ("question contains a NUL character (U+0000) at character 3");
 * - the same audit: that reason ended with the agent's remedy for an API client ("… the request shapes are in
 *   docs/API.md"), and a refused approval or mark (the run page's two plain forms) said the code's generic line alone.
 * The agent is a stubbed fetch.
 */

/** The cookies the page is rendered with: the words cookie this browser's post left, or none. */
const jar = vi.hoisted(() => ({ words: undefined as string | undefined }));

// Next resolves these itself; the routes' lib/agent.ts is server code, imported here outside Next.
vi.mock('server-only', () => ({}));
vi.mock('next/headers', () => ({
  cookies: async () => ({ get: (name: string) => (name === 'sandscope_refusal' && jar.words !== undefined ? { value: jar.words } : undefined) }),
  headers: async () => new Headers(),
}));

const { POST: postRun } = await import('../app/api/runs/route');
const { POST: postFile } = await import('../app/api/investigations/[id]/files/route');
const { POST: postApprove } = await import('../app/api/runs/[id]/approve/route');
const { POST: postFeedback } = await import('../app/api/runs/[id]/feedback/route');
const { default: RunPage } = await import('../app/runs/[id]/page');
const { default: RunsPage } = await import('../app/runs/page');
const { filePath } = await import('../lib/agent');
const { REFUSAL_WORDS_COOKIE, refusalWordsCookie, withRefusalWords } = await import('../lib/refusal-words');

const agent = stubAgentFetch();

const INVESTIGATION = 'b1c12ddc-9b59-4481-94cd-90189e1c4991';
/** The agent's reason, and the message it sends: the reason followed by the code's remedy for an API client. */
const NUL_REASON = 'question contains a NUL character (U+0000) at character 3; remove it.';
const NUL_REFUSAL = `${NUL_REASON} ${API_ERRORS.invalid_request.remedy}`;
const PATH_REFUSAL =
  'The path "../../etc/evil.log" leaves the workspace ("..") — only the investigation\'s files can be read; name one as list_files shows it.';

const refusal = (code: string, message: string, status = 400) =>
  new Response(JSON.stringify({ error: { code, message } }), { status, headers: { 'content-type': 'application/json' } });

/** The value of the words cookie a response sets (what the browser sends back to the page). */
function wordsSet(res: Response): string | undefined {
  const line = res.headers.getSetCookie().find((c) => c.startsWith(`${REFUSAL_WORDS_COOKIE}=`));
  return line?.slice(REFUSAL_WORDS_COOKIE.length + 1).split(';')[0];
}

const upload = (name: string | null, content = '10:00:01 INFO start\n') => {
  const form = new FormData();
  if (name === null) form.append('file', new File([], '', { type: 'application/octet-stream' }));
  else form.append('file', new File([content], name, { type: 'text/plain' }));
  return postFile(new Request(`http://web.test/api/investigations/${INVESTIGATION}/files`, { method: 'POST', body: form }), {
    params: Promise.resolve({ id: INVESTIGATION }),
  });
};

describe('the words of a refusal, carried in a cookie and not the URL', () => {
  it('are read back for the code and the form they were set for, and for nothing else', () => {
    const cookie = refusalWordsCookie({ code: 'invalid_request', status: 400, message: 'workload must be one of triage, change, postmortem.' }, 'console');
    expect(cookie).toMatch(/; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Lax$/);
    const value = cookie.slice(REFUSAL_WORDS_COOKIE.length + 1).split(';')[0];
    const fromUrl = { code: 'invalid_request' as const, status: 0 };
    expect(withRefusalWords(fromUrl, 'console', value).message).toBe('workload must be one of triage, change, postmortem.');
    expect(withRefusalWords(fromUrl, 'upload', value).message).toBeUndefined();
    expect(withRefusalWords({ code: 'rate_limited', status: 0 }, 'console', value).message).toBeUndefined();
    expect(withRefusalWords(fromUrl, 'console', 'not-base64-json').message).toBeUndefined();
    expect(withRefusalWords(fromUrl, 'console', undefined)).toEqual(fromUrl);
  });

  it('a refusal without words clears any earlier ones', () => {
    expect(refusalWordsCookie({ code: 'invalid_request', status: 400 }, 'upload')).toBe(`${REFUSAL_WORDS_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax`);
  });

  it('keeps a long message within what a cookie holds', () => {
    const cookie = refusalWordsCookie({ code: 'invalid_request', status: 400, message: '“é”'.repeat(400), detail: '—'.repeat(400) }, 'turn');
    expect(cookie.length).toBeLessThan(4000);
  });
});

describe('POST /api/runs — the console’s plain form keeps the reason', () => {
  it('the agent’s reason for refusing a question comes back in the cookie; the URL still carries the code only', async () => {
    agent.mockResolvedValue(refusal('invalid_request', NUL_REFUSAL));
    const res = await postRun(
      new Request('http://web.test/api/runs', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ question: 'hi\u0000there', workload: 'triage' }).toString(),
      }),
    );
    expect(res.status).toBe(303);
    const location = res.headers.get('location') ?? '';
    expect(location).toMatch(/^\/\?error=invalid_request&/);
    expect(location).not.toContain('NUL');
    const carried = withRefusalWords({ code: 'invalid_request', status: 0 }, 'console', wordsSet(res));
    // The reason, with the website's remedy: a person on a page is not sent to docs/API.md.
    expect(carried.message).toBe(`${NUL_REASON} ${remedyOf('invalid_request', 'web')}`);
    expect(carried.message).not.toContain('docs/API.md');
  });

  it('the website’s own reason (a workload it does not know) comes back too, without asking the agent', async () => {
    const res = await postRun(
      new Request('http://web.test/api/runs', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ question: 'hi there', workload: 'bogus' }).toString(),
      }),
    );
    expect(agent).not.toHaveBeenCalled();
    expect(withRefusalWords({ code: 'invalid_request', status: 0 }, 'console', wordsSet(res)).detail).toBe(
      'workload: must be one of triage, change, postmortem.',
    );
  });
});

describe('POST /api/investigations/:id/files — an upload the agent refuses says why', () => {
  it('a path-like name reaches the agent as one path, not as another route', async () => {
    expect(filePath('logs/app.log')).toBe('logs/app.log');
    expect(filePath('../../etc/evil.log')).toBe('..%2F..%2Fetc%2Fevil.log');
    expect(filePath('a/./b.log')).toBe('a%2F.%2Fb.log');
    // Nothing but `..`: no URL keeps it, so the website says why itself.
    let thrown: unknown;
    try {
      filePath('..');
    } catch (error) {
      thrown = error;
    }
    expect((thrown as { problem?: { code: string; detail?: string } }).problem).toMatchObject({
      code: 'invalid_request',
      detail: expect.stringMatching(/names a folder, not a file/),
    });
    agent.mockResolvedValue(refusal('invalid_request', PATH_REFUSAL));
    await upload('../../etc/evil.log');
    const url = new URL(String(agent.mock.calls[0]?.[0]));
    expect(url.pathname).toBe(`/v1/investigations/${INVESTIGATION}/files/..%2F..%2Fetc%2Fevil.log`);
  });

  it('the agent’s 400 comes back as invalid_request with its words, not as not_found', async () => {
    agent.mockResolvedValue(refusal('invalid_request', PATH_REFUSAL));
    const res = await upload('../../etc/evil.log');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/investigations/${INVESTIGATION}?error=invalid_request&during=upload#files`);
    expect(withRefusalWords({ code: 'invalid_request', status: 0 }, 'upload', wordsSet(res)).message).toBe(PATH_REFUSAL);
  });

  it('no file chosen says so, and asks nothing of the agent', async () => {
    const res = await upload(null);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/investigations/${INVESTIGATION}?nofile=1#files`);
    expect(agent).not.toHaveBeenCalled();
  });
});

const RUN = '3f1c2a9e-5b7d-4e21-9a0c-1d2e3f4a5b6c';
const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

/** `GET /v1/runs/:id` of a run that stopped for approval: the page shows both its Approve door and "Was this right?". */
const gatedRun = gatedRunDetail(RUN, { sessionOwned: false });

/** The page the 303 leads to, rendered with the cookie the 303 set (as the browser that posted sends it back). */
async function pageAfter(res: Response): Promise<string> {
  const location = new URL(res.headers.get('location') ?? '', 'http://web.test');
  const searchParams = Promise.resolve(Object.fromEntries(location.searchParams));
  jar.words = wordsSet(res);
  try {
    agent.mockImplementation(async (url) => (String(url).includes('/v1/runs?') ? json({ runs: [], page: 1, pageSize: 20, total: 0 }) : json(gatedRun)));
    const page = location.pathname === '/runs' ? RunsPage({ searchParams }) : RunPage({ params: Promise.resolve({ id: RUN }), searchParams });
    return renderToStaticMarkup(createElement('main', null, (await page) as never));
  } finally {
    jar.words = undefined;
  }
}

const approve = (id = RUN) => postApprove(new Request(`http://web.test/api/runs/${id}/approve`, { method: 'POST' }), { params: Promise.resolve({ id }) });

const mark = (fields: Record<string, string>) =>
  postFeedback(
    new Request(`http://web.test/api/runs/${RUN}/feedback`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    }),
    { params: Promise.resolve({ id: RUN }) },
  );

describe('POST /api/runs/:id/approve — a refused approval says why', () => {
  it('another session’s approval: the agent’s reason on the run page, with the website’s remedy, not the API’s cookie advice', async () => {
    const reason = `run ${RUN} was requested by another session.`;
    agent.mockResolvedValue(json({ error: { code: 'forbidden_session', message: `${reason} ${API_ERRORS.forbidden_session.remedy}` } }, 403));
    const res = await approve();
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/runs/${RUN}?error=forbidden_session&during=approval`);
    expect(withRefusalWords({ code: 'forbidden_session', status: 0 }, 'approval', wordsSet(res)).message).toBe(
      `${reason} ${remedyOf('forbidden_session', 'web')}`,
    );
    const html = await pageAfter(res);
    expect(html).toContain('The approval was refused.');
    expect(html).toContain(`The agent says: “<bdi>${reason} ${remedyOf('forbidden_session', 'web')}</bdi>”`);
    expect(html).not.toContain('sandscope_session');
  });

  it('an approval the agent refuses for a passing reason is said to be the approval’s, with its words', async () => {
    agent.mockResolvedValue(json({ error: { code: 'rate_limited', message: API_ERRORS.rate_limited.remedy } }, 429));
    const html = await pageAfter(await approve());
    expect(html).toContain('The approval was refused.');
    expect(html).toContain(`The agent says: “<bdi>${remedyOf('rate_limited', 'web')}</bdi>”`);
    expect(html).not.toContain('Retry-After');
  });

  it('a run approved before: the agent’s words under the website’s code', async () => {
    const reason = `run ${RUN} was already approved.`;
    agent.mockResolvedValue(json({ error: { code: 'not_awaiting_approval', message: `${reason} ${API_ERRORS.not_awaiting_approval.remedy}` } }, 409));
    const res = await approve();
    expect(res.headers.get('location')).toBe(`/runs/${RUN}?error=already_approved&during=approval`);
    expect(await pageAfter(res)).toContain(`The agent says: “<bdi>${reason} ${remedyOf('not_awaiting_approval', 'web')}</bdi>”`);
  });

  it('a run the agent does not have: the runs list says the agent’s words; an id that names no run clears any earlier ones', async () => {
    const reason = `run ${RUN} does not exist.`;
    agent.mockResolvedValue(json({ error: { code: 'not_found', message: `${reason} ${API_ERRORS.not_found.remedy}` } }, 404));
    const res = await approve();
    expect(res.headers.get('location')).toBe('/runs?error=not_found&during=approval');
    const html = await pageAfter(res);
    expect(html).toContain('There is no such run to approve');
    expect(html).toContain(`The agent says: “<bdi>${reason} ${remedyOf('not_found', 'web')}</bdi>”`);
    expect(html).not.toContain('GET /v1/runs');
    expect((await approve('no such run')).headers.getSetCookie()).toEqual([`${REFUSAL_WORDS_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax`]);
  });

  // The runs list read `params.during === 'approval'` where its siblings read first(…): a repeated `during` (an
  // array) lost the approval's context and the agent's words, as a repeated `error` or `page` did not (S-207's note).
  it('a repeated `during` on the runs list is read by its first value, as its other parameters are', async () => {
    const reason = `run ${RUN} does not exist.`;
    agent.mockResolvedValue(json({ error: { code: 'not_found', message: `${reason} ${API_ERRORS.not_found.remedy}` } }, 404));
    jar.words = wordsSet(await approve());
    agent.mockImplementation(async () => json({ runs: [], page: 1, pageSize: 20, total: 0 }));
    const page = RunsPage({ searchParams: Promise.resolve({ error: ['not_found', 'internal'], during: ['approval', 'feedback'] }) });
    const html = renderToStaticMarkup(createElement('main', null, (await page) as never));
    jar.words = undefined;
    expect(html).toContain('data-problem="not_found"');
    expect(html).toContain('There is no such run to approve');
    expect(html).toContain(`The agent says: “<bdi>${reason} ${remedyOf('not_found', 'web')}</bdi>”`);
  });

  it('words left by an approval are not shown for the same code on a page no approval led to', async () => {
    agent.mockResolvedValue(json({ error: { code: 'internal', message: API_ERRORS.internal.remedy } }, 500));
    const res = await approve();
    jar.words = wordsSet(res);
    agent.mockImplementation(async () => json(gatedRun));
    // A console run that failed lands on its run page with the code alone (app/api/runs/route.ts).
    const page = RunPage({ params: Promise.resolve({ id: RUN }), searchParams: Promise.resolve({ error: 'internal' }) });
    const html = renderToStaticMarkup(createElement('main', null, (await page) as never));
    jar.words = undefined;
    expect(html).toContain('data-problem="internal"');
    expect(html).not.toContain('The agent says');
  });
});

describe('POST /api/runs/:id/feedback — a refused mark says why', () => {
  it('a note the agent refuses: its reason beside the form, with the website’s remedy', async () => {
    const reason = 'body.note: contains a NUL character (U+0000) at character 2; remove it.';
    agent.mockResolvedValue(json({ error: { code: 'invalid_request', message: `${reason} ${API_ERRORS.invalid_request.remedy}` } }, 400));
    const res = await mark({ label: 'right', note: 'a\u0000b' });
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/runs/${RUN}?error=invalid_request&during=feedback&label=right&note=a%00b#feedback`);
    const html = await pageAfter(res);
    const feedback = html.slice(html.indexOf('id="feedback"'));
    expect(feedback).toContain('The mark was not saved');
    expect(feedback).toContain(`The agent says: “<bdi>${reason} ${remedyOf('invalid_request', 'web')}</bdi>”`);
    expect(html).not.toContain('docs/API.md');
    // Said next to the form, not as the run's own problem.
    expect(html).not.toContain('The approval was refused.');
  });

  // S-224: the page came back with no answer chosen and the note's box empty.
  it('a mark the agent refuses anyway comes back with the choice and the note as posted', async () => {
    const reason = `run ${RUN} answered, and wrong-refusal says it refused what the library answers: a run that answered is marked wrong-answer or right.`;
    agent.mockResolvedValue(json({ error: { code: 'invalid_request', message: reason } }, 400));
    const res = await mark({ label: 'wrong-answer', note: 'the replica runbook says otherwise' });
    const html = await pageAfter(res);
    const feedback = html.slice(html.indexOf('id="feedback"'));
    expect(feedback).toMatch(/name="label" checked="" value="wrong-answer"/);
    expect(feedback).toContain('>the replica runbook says otherwise</textarea>');
    // The gated run answered: Wrong refusal is not offered at all.
    expect(feedback).not.toContain('value="wrong-refusal"');
  });

  it('a refusal the website makes itself (a label it does not know) asks nothing of the agent and clears any earlier words', async () => {
    const res = await mark({ label: 'meh' });
    expect(agent).not.toHaveBeenCalled();
    expect(res.headers.getSetCookie()).toEqual([`${REFUSAL_WORDS_COOKIE}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax`]);
  });

  it('another code’s words are shown in the problem panel by the form', async () => {
    agent.mockResolvedValue(json({ error: { code: 'store_unavailable', message: API_ERRORS.store_unavailable.remedy } }, 503));
    const html = await pageAfter(await mark({ label: 'right' }));
    expect(html).toContain('Your mark was not saved.');
    expect(html).toContain(`The agent says: “<bdi>${remedyOf('store_unavailable', 'web')}</bdi>”`);
    expect(html).not.toContain('/healthz');
  });
});
