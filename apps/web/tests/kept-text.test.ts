import { describe, expect, it, vi } from 'vitest';
import { backWithProblem } from '../lib/investigation-forms';
import { CUT_PARAM, cutNotice, KEPT_TEXT_URL_BYTES, keptForUrl } from '../lib/kept-text';
import { stubAgentFetch } from './testing/stub-agent';

/*
 * S-223 (a colleague's black-box audit of the website, 2026-12-07): a refused question or message rode back in the
 * redirect's URL cut by characters, so 2,000 Chinese characters were 18 KB of Location, the server answered the browser
 * 431 and the text was lost. Node.js reads 16 KB of request head: the kept text must fit by its encoded length.
 */

vi.mock('server-only', () => ({}));
vi.mock('next/headers', () => ({ cookies: async () => ({ get: () => undefined }), headers: async () => new Headers() }));
const { POST } = await import('../app/api/runs/route');
const agent = stubAgentFetch();

/** The request head a browser sends to load `location`, less its own headers: what must stay under 16 KB. */
const NODE_HEAD_BYTES = 16 * 1024;

const chinese = '错'.repeat(2000);
const emoji = '👩‍🚒'.repeat(1500);

describe('keptForUrl', () => {
  it('cuts by the encoded length, on a character boundary, and says it cut', () => {
    const kept = keptForUrl(chinese, 4000);
    expect(kept.cut).toBe(true);
    expect(new URLSearchParams({ message: kept.text }).toString().length).toBeLessThanOrEqual(KEPT_TEXT_URL_BYTES + 'message='.length);
    expect(kept.text).toBe('错'.repeat(kept.text.length));
    expect(kept.text.length).toBeGreaterThan(800);
  });

  it('never splits an emoji, not even one joined from several', () => {
    const kept = keptForUrl(emoji, 4000);
    expect(kept.cut).toBe(true);
    expect(kept.text.length % '👩‍🚒'.length).toBe(0);
    expect(keptForUrl('ab👩‍🚒', 3)).toEqual({ text: 'ab', cut: true });
  });

  it('keeps a text that fits as it is, not cut', () => {
    expect(keptForUrl('why did checkout return 502? 为什么', 4000)).toEqual({ text: 'why did checkout return 502? 为什么', cut: false });
    expect(keptForUrl('x'.repeat(20_000), 2000)).toEqual({ text: 'x'.repeat(2000), cut: true });
  });

  it('the page says how much it kept', () => {
    expect(cutNotice('错'.repeat(888), 'message')).toMatch(/message was too long to bring back whole: the box holds its first 888 characters/);
  });
});

describe('a refused long non-English text comes back within what the server reads', () => {
  for (const [name, text] of [
    ['2,000 Chinese characters', chinese],
    ['1,500 emoji', emoji],
  ] as const) {
    it(`an investigation's message of ${name}`, () => {
      const res = backWithProblem('/investigations/abc', { code: 'question_too_long', status: 400 }, 'turn', 'ask', text);
      const location = res.headers.get('location')!;
      expect(location.length).toBeLessThan(NODE_HEAD_BYTES / 2);
      const query = new URL(location, 'http://localhost').searchParams;
      expect(text.startsWith(query.get('message')!)).toBe(true);
      expect(query.get('message')!.length).toBeGreaterThan(0);
      expect(query.get(CUT_PARAM)).toBe('1');
    });

    it(`the console's question of ${name} (JavaScript off)`, async () => {
      agent.mockResolvedValue(
        new Response(JSON.stringify({ error: { code: 'question_too_long', message: 'The question is too long.' } }), {
          status: 400,
          headers: { 'content-type': 'application/json' },
        }),
      );
      const res = await POST(
        new Request('http://web.test/api/runs', {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ question: text, workload: 'triage' }).toString(),
        }),
      );
      const location = res.headers.get('location')!;
      expect(location.length).toBeLessThan(NODE_HEAD_BYTES / 2);
      const query = new URLSearchParams(location.slice(2));
      expect(query.get('error')).toBe('question_too_long');
      expect(text.startsWith(query.get('q')!)).toBe(true);
      expect(query.get(CUT_PARAM)).toBe('1');
    });
  }
});
