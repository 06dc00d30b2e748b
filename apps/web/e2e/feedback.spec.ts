import { expect, test } from '@playwright/test';
import { shot } from './helpers';
import { PORTS } from './ports';

/*
 * "Was this right?" (issue 9, part D), end to end with JavaScript OFF: the form
 * is a plain post through the website's own server, which calls the agent with
 * the token and redirects back to the run.
 *
 * Does the agent's `eval --feedback` path see the mark? That path is: the
 * store's listFeedback rows → feedbackToQuestion → the evaluation an external
 * question file takes. The CLI itself cannot run here: the agent under test
 * holds its embedded PGlite data directory open for the whole run, and PGlite
 * has one owner per directory (the CLI refuses, "open in another process",
 * rather than corrupt it). So this spec reads the same rows the agent serves
 * from that store (GET /v1/feedback — called by the test process, which holds
 * the token as an operator would; the browser never talks to the agent) and
 * converts them with the one function `eval --feedback` uses. The CLI half of
 * the path, on a database it can open, is apps/agent/src/cli/feedback-command.test.ts.
 */

/**
 * feedbackToQuestion from @sandscope/eval, loaded at run time. Not a static
 * import: `next build` type-checks this folder with the website's compiler
 * options, which cannot follow the workspace packages' `.ts` import paths (the
 * same reason fake-agent.mts, which imports them too, is outside that check).
 */
async function feedbackToQuestion(mark: Mark): Promise<Record<string, unknown>> {
  const specifier = '@sandscope/eval/feedback';
  const module = (await import(specifier)) as { feedbackToQuestion: (m: Mark) => Record<string, unknown> };
  return module.feedbackToQuestion(mark);
}

test.use({ javaScriptEnabled: false });
test.skip(process.env.E2E_AGENT === 'fake', 'the fake agent keeps no marks; this spec checks the real agent’s store');

const AGENT = `http://127.0.0.1:${PORTS.agent}`;
const TOKEN = process.env.E2E_AGENT_TOKEN ?? 'e2e-token-set-by-run-sh';
const QUESTION = 'What is the connection pool ceiling for orders-db?';

interface Mark {
  runId: string;
  label: 'wrong-answer' | 'wrong-refusal' | 'right';
  note: string | null;
  question: string;
  verdict: 'answered' | 'partial' | 'refused';
  citedChunkIds: string[];
}

test('a run marked wrong-answer on its page shows the mark, and the eval --feedback path sees it as an unanswerable question', async ({ page }) => {
  const note = `e2e ${Date.now()}: the ceiling it quotes is not what on-call uses`;

  // Ask, without JavaScript: the question runs server-side and the browser lands on the finished run.
  await page.goto('/');
  await page.getByLabel('Question').fill(QUESTION);
  await page.getByRole('button', { name: 'Ask' }).click();
  await expect(page).toHaveURL(/\/runs\/[^/?]+$/);
  // It answers (perhaps partially); what the gate decides is not under test here.
  await expect(page.locator('.outcome-banner')).toHaveAttribute('data-verdict', /^(answered|partial)$/);
  const verdict = (await page.locator('.outcome-banner').getAttribute('data-verdict'))!;
  const runId = (await page.locator('article.run-page').getAttribute('data-run-id'))!;
  await expect(page.locator('.feedback-current')).toContainText('Not marked yet.');

  // Mark it.
  const feedback = page.locator('section.feedback');
  await feedback.getByLabel(/^Wrong answer/).check();
  await feedback.getByLabel('Note (optional)').fill(note);
  await feedback.getByRole('button', { name: 'Save the mark' }).click();

  // Back on the run, the mark is shown — read from the agent, so it survives a fresh load.
  await expect(page).toHaveURL(new RegExp(`/runs/${runId}\\?marked=1#feedback$`));
  await expect(feedback.locator('.feedback-saved')).toContainText('no longer served from the cache');
  await page.goto(`/runs/${runId}`);
  await expect(feedback.locator('.feedback-current')).toHaveAttribute('data-label', 'wrong-answer');
  await expect(feedback.locator('.feedback-current')).toContainText('Wrong answer');
  await expect(feedback.locator('.feedback-current')).toContainText(note);
  await expect(feedback.getByLabel(/^Wrong answer/)).toBeChecked();
  await expect(feedback.getByRole('button', { name: 'Replace the mark' })).toBeVisible();
  await shot(page, '17-run-marked-wrong-answer');

  // A hand-made post with a label the agent does not know is refused and said so; the mark stands.
  const bad = await page.request.post(`/api/runs/${runId}/feedback`, { form: { label: 'meh', note: 'x' }, maxRedirects: 0 });
  expect(bad.status()).toBe(303);
  // S-224: the note comes back with the refusal (the label too, where it is one the run admits).
  expect(bad.headers().location).toBe(`/runs/${runId}?error=invalid_request&during=feedback&note=x#feedback`);
  await page.goto(bad.headers().location!);
  await expect(feedback.locator('[data-problem="invalid_request"]')).toContainText('The mark was not saved');
  await expect(feedback.locator('.feedback-current')).toHaveAttribute('data-label', 'wrong-answer');

  // What `eval --feedback` loads: the stored mark with the run's question and verdict…
  const res = await fetch(`${AGENT}/v1/feedback`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  const marks = ((await res.json()) as { feedback: Mark[] }).feedback;
  const mark = marks.find((m) => m.runId === runId);
  expect(mark).toMatchObject({ label: 'wrong-answer', note, question: QUESTION, verdict });
  // …and the question it scores: the library cannot answer it (the run answered wrongly), no evidence, the note kept.
  expect(await feedbackToQuestion(mark!)).toEqual({
    id: `feedback-${runId}`,
    question: QUESTION,
    label: 'unanswerable',
    mechanism: 'feedback-wrong-answer',
    note,
  });
});
