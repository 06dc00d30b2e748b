import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it, vi } from 'vitest';
import { gatedRunDetail } from './testing/gated-run';
import { stubAgentFetch } from './testing/stub-agent';

/*
 * S-240 (a colleague's black-box audit of the website, 2026-12-07): a question in Arabic with a U+202E override in it
 * showed its run heading as "… لـ orders-dblive ؟", and the words "Why" quotes from it in reverse order with their
 * quote marks misplaced. User text is now isolated for direction wherever the site shows it: `dir="auto"` on an element
 * that is all user text, a <bdi> around user text inside the site's own sentence. The agent is a stubbed fetch.
 */

vi.mock('server-only', () => ({}));
vi.mock('next/headers', () => ({ cookies: async () => ({ get: () => undefined }), headers: async () => new Headers() }));

const { default: RunPage } = await import('../app/runs/[id]/page');
const { default: RunsPage } = await import('../app/runs/page');
const { default: InvestigationsPage } = await import('../app/investigations/page');
const { default: InvestigationPage } = await import('../app/investigations/[id]/page');
const { RunOutcome } = await import('../components/run-outcome');
const { InvestigationAnswer } = await import('../components/investigation-answer');
const { ConsoleForm } = await import('../app/_console/console-form');
const { ProblemPanel } = await import('../components/problem');

/** The audit's question: Arabic, with "evil" inside a right-to-left override (U+202E … U+202C). */
const ASKED = 'ما هو الحد الأقصى لمجمع الاتصالات لـ orders-db؟ \u202Eevil\u202C';
const RUN = '9a7c3e21-4f0b-4d6e-8b15-3c2a1f0e9d84';
const INVESTIGATION = 'c4e1b2a3-7d6f-4e5a-9b8c-0d1e2f3a4b5c';
const AT = '2026-12-07T10:00:00Z';

const agent = stubAgentFetch();
const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
const html = async (page: Promise<unknown>) => renderToStaticMarkup(createElement('main', null, (await page) as never));
const none = Promise.resolve({});

describe('a run’s question is isolated for direction', () => {
  const detail = gatedRunDetail(RUN, { sessionOwned: false });
  const run = { ...detail.run, question: ASKED };

  it('on the run’s page, its heading takes the question’s own direction', async () => {
    agent.mockResolvedValue(json({ ...detail, run }));
    expect(await html(RunPage({ params: Promise.resolve({ id: RUN }), searchParams: none }))).toContain(`<h1 class="run-question" dir="auto">${ASKED}</h1>`);
  });

  it('in the runs list, its cell does', async () => {
    const { answer, action, risk, reasons, sessionOwned, ...summary } = run;
    agent.mockResolvedValue(json({ runs: [summary], page: 1, pageSize: 20, total: 1 }));
    expect(await html(RunsPage({ searchParams: none }))).toContain(`<td class="question-cell" dir="auto">${ASKED}</td>`);
  });

  it('in the console’s box, as it is typed or brought back', () => {
    const form = renderToStaticMarkup(createElement(ConsoleForm, { providers: [], initialQuestion: ASKED, initialWorkload: 'triage', presets: false }));
    expect(form).toMatch(/<textarea id="question" name="question" dir="auto"/);
  });
});

describe('the words a reason quotes are each isolated', () => {
  const refused = {
    runId: RUN,
    outcome: 'refused',
    verdict: 'refused',
    band: 'insufficient',
    score: 0.1,
    terminal: 'refuse',
    reasons: ['Not answered: the library never mentions “الحد”, “الأقصى”, “\u202Eevil\u202C”.'],
    claims: [],
    answer: null,
    risk: null,
    action: null,
  } as const;

  it('in “Why”, each quoted word sits in a <bdi> inside its own quote marks, in the order the reason gives', () => {
    const markup = renderToStaticMarkup(createElement(RunOutcome, { view: refused }));
    expect(markup).toContain('Not answered: the library never mentions “<bdi>الحد</bdi>”, “<bdi>الأقصى</bdi>”, “<bdi>\u202Eevil\u202C</bdi>”.');
  });

  it('in an investigation’s notes and unknowns, straight quotes too', () => {
    const message = {
      id: 2,
      role: 'assistant',
      text: '',
      result: {
        claims: [],
        passages: [],
        unknown: ['Nothing says when “الحد” began.'],
        notes: ['No line of app.log mentions "الاتصالات".'],
        toolCalls: [],
      },
      metrics: null,
      createdAt: AT,
    };
    const markup = renderToStaticMarkup(createElement(InvestigationAnswer, { investigationId: INVESTIGATION, message: message as never }));
    expect(markup).toContain('Nothing says when “<bdi>الحد</bdi>” began.');
    expect(markup).toContain('No line of app.log mentions &quot;<bdi>الاتصالات</bdi>&quot;.');
  });
});

describe('an investigation’s title and messages are isolated for direction', () => {
  const investigation = { id: INVESTIGATION, title: ASKED, createdAt: AT, updatedAt: AT };

  it('in the list, the title is a <bdi> in its link', async () => {
    agent.mockResolvedValue(json({ investigations: [{ ...investigation, fileCount: 0, messageCount: 1 }] }));
    expect(await html(InvestigationsPage({ searchParams: none }))).toContain(`<bdi>${ASKED}</bdi></a>`);
  });

  it('on its page, the heading and a message typed there take their own direction', async () => {
    const user = { id: 1, role: 'user', text: ASKED, result: null, metrics: null, createdAt: AT };
    agent.mockResolvedValue(json({ investigation, files: [], messages: [user] }));
    const page = await html(InvestigationPage({ params: Promise.resolve({ id: INVESTIGATION }), searchParams: none }));
    expect(page).toContain(`<h1 dir="auto">${ASKED}</h1>`);
    expect(page).toContain(`<p class="message-text" dir="auto">${ASKED}</p>`);
  });
});

describe('S-244: a problem panel isolates the agent’s words, which often quote the person’s', () => {
  it('its message in a <bdi> inside the quote marks, its detail’s quoted words each in one', () => {
    const markup = renderToStaticMarkup(
      createElement(ProblemPanel, {
        problem: { code: 'invalid_request', status: 400, message: `question is too long: “${ASKED}”`, detail: `could not read "${ASKED}"` },
      }),
    );
    expect(markup).toContain(`The agent says: “<bdi>question is too long: “${ASKED}”</bdi>”`);
    expect(markup).toContain(`could not read &quot;<bdi>${ASKED}</bdi>&quot;`);
  });
});
