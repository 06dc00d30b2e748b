import type { Verdict } from '@sandscope/api';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { FeedbackForm } from '../components/feedback-form';
import { choicesFor } from '../lib/feedback-labels';

/*
 * S-224 (a colleague's black-box audit of the website, 2026-12-07): "Was this right?" offered all three answers on
 * every run, and the agent refuses Wrong answer on a refusal and Wrong refusal on an answer (S-210) — every time, the
 * note typed with it lost and no answer chosen when the page came back. The form offers what the verdict admits (the
 * store's own rule) and a mark that fails anyway comes back as it was posted.
 */

const render = (verdict: Verdict, extra: Partial<Parameters<typeof FeedbackForm>[0]> = {}) =>
  renderToStaticMarkup(createElement(FeedbackForm, { runId: 'r1', verdict, current: null, saved: false, problem: null, ...extra }));
const offered = (html: string) => [...html.matchAll(/name="label"[^>]*value="([^"]+)"/g)].map((m) => m[1]);
const chosen = (html: string) => [...html.matchAll(/name="label" checked="" value="([^"]+)"/g)].map((m) => m[1]);

describe('"Was this right?" offers only the answers the run’s verdict admits', () => {
  it('a refused run: Wrong refusal or Right, never Wrong answer', () => {
    expect(offered(render('refused'))).toEqual(['right', 'wrong-refusal']);
  });

  it('an answered run (a gated or escalated one too: they carry the verdict they reached): Wrong answer or Right', () => {
    expect(offered(render('answered'))).toEqual(['right', 'wrong-answer']);
  });

  it('a partial answer is both an answer and a withheld one: all three', () => {
    expect(offered(render('partial'))).toEqual(['right', 'wrong-answer', 'wrong-refusal']);
    expect(choicesFor('partial').map((c) => c.label)).toEqual(['right', 'wrong-answer', 'wrong-refusal']);
  });
});

describe('a mark that was not saved comes back as it was posted', () => {
  const problem = { code: 'invalid_request' as const, status: 400 };
  const current = { label: 'right' as const, note: 'the earlier note', createdAt: '2026-12-07T10:00:00Z' };

  it('the choice and the note posted, not the earlier mark or an empty box', () => {
    const html = render('partial', { current, problem, kept: { label: 'wrong-refusal', note: 'the runbook covers it & more', cut: false } });
    expect(chosen(html)).toEqual(['wrong-refusal']);
    expect(html).toContain('>the runbook covers it &amp; more</textarea>');
    expect(html).not.toContain('data-cut="note"');
  });

  it('says so when the note came back cut', () => {
    const html = render('refused', { problem, kept: { label: null, note: '错'.repeat(888), cut: true } });
    expect(chosen(html)).toEqual([]);
    expect(html).toContain('data-cut="note"');
    expect(html).toContain('first 888 characters');
  });
});

describe('the passage that answers, the mark replaced, and the agent’s reason (S-286, S-289, S-290)', () => {
  it('offers a box for the passage that answers, holding the one the current mark names', () => {
    const html = render('answered', { current: { label: 'right', note: null, evidence: 'runbook-pool#ceiling', createdAt: '2026-12-07T10:00:00Z' } });
    expect(html).toMatch(/<input [^>]*name="evidence" [^>]*value="runbook-pool#ceiling"/);
    expect(html).toContain('The passage that answers: <code>runbook-pool#ceiling</code>');
  });

  it('a refusal with the agent’s reason says it in place of the site’s line; without one, the site’s line', () => {
    const withReason = render('answered', { problem: { code: 'invalid_request', status: 400, message: 'the passage that answers matches 3 passages' } });
    expect(withReason).toContain(
      'The mark was not saved.<span class="problem-message"> The agent says: “<bdi>the passage that answers matches 3 passages</bdi>”',
    );
    expect(withReason).not.toContain('choose one of the answers offered');
    expect(render('answered', { problem: { code: 'invalid_request', status: 400 } })).toContain('The mark was not saved: choose one of the answers offered');
  });

  it('a save that replaced a mark names it', () => {
    const current = { label: 'wrong-answer' as const, note: null, createdAt: '2026-12-08T10:00:00Z' };
    const html = render('answered', { current, saved: true, replaced: { label: 'right', note: 'good', createdAt: '2026-12-08T01:02:00Z' } });
    expect(html).toContain('It replaced the earlier mark: Right, note “<bdi>good</bdi>”, made 2026-12-08 01:02:00 UTC.');
  });
});
