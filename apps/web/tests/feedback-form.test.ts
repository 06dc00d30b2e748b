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
