import { describe, expect, it, vi } from 'vitest';
import { stubAgentFetch } from './testing/stub-agent';

/*
 * A refused form post's reason, carried to the page the 303 leads to (lib/refusal-words.ts), and the upload door's
 * URL to the agent (lib/agent.ts filePath). A black-box test of the website, with JavaScript off:
 * - S-197: an upload named `../../etc/evil.log` came back "Not found … made against another database" (the URL to the
 *   agent lost its `..` segments), and an upload with no file chosen said "only text files are accepted";
 * - S-197: the console said "Type a question, pick a workload" for a question the agent refused with its reason
 *   ("question contains a NUL character (U+0000) at character 3").
 * The agent is a stubbed fetch.
 */

// Next resolves these itself; the routes' lib/agent.ts is server code, imported here outside Next.
vi.mock('server-only', () => ({}));
vi.mock('next/headers', () => ({ cookies: async () => ({ get: () => undefined }), headers: async () => new Headers() }));

const { POST: postRun } = await import('../app/api/runs/route');
const { POST: postFile } = await import('../app/api/investigations/[id]/files/route');
const { filePath } = await import('../lib/agent');
const { REFUSAL_WORDS_COOKIE, refusalWordsCookie, withRefusalWords } = await import('../lib/refusal-words');

const agent = stubAgentFetch();

const INVESTIGATION = 'b1c12ddc-9b59-4481-94cd-90189e1c4991';
const NUL_REFUSAL = 'question contains a NUL character (U+0000) at character 3; remove it. Fix what the message names; the request shapes are in docs/API.md.';
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
    expect(carried.message).toBe(NUL_REFUSAL);
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
