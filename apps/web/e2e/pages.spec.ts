import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { shot } from './helpers';
import { PORTS } from './ports';

/** The committed record the agent under test serves (docs/evaluation.json). */
const RECORD = path.resolve(typeof __dirname === 'string' ? __dirname : process.cwd(), '../../../docs/evaluation.json');

test('runs list links every run', async ({ page }) => {
  // a run of its own: this spec must not depend on another having asked first (run alone, the list was empty)
  const asked = await page.request.post('/api/runs', {
    form: { question: 'What is the connection pool ceiling for orders-db?', workload: 'triage' },
    maxRedirects: 0,
  });
  expect(asked.status()).toBe(303);
  await page.goto('/runs');
  await expect(page.getByRole('heading', { name: 'Runs' })).toBeVisible();
  const rows = page.locator('table.runs-table tbody tr');
  expect(await rows.count()).toBeGreaterThan(0);
  await shot(page, '15-runs');
  await rows.first().locator('a').first().click();
  await expect(page).toHaveURL(/\/runs\/[^/]+$/);
  await expect(page.locator('.timeline')).toBeVisible();
});

test('evaluation: the held-out headline against its targets, every corpus, the upper bound, and bands that move the chart', async ({ page }) => {
  // the agent under test serves docs/evaluation.json (committed): a missing report here is a failure, not a skip
  await page.goto('/evaluation');
  await expect(page.getByRole('heading', { name: 'Leave-one-corpus-out (the headline)' })).toBeVisible();
  // met or missed in words, not only in colour
  const headline = page.locator('#headline .figure-card');
  await expect(headline).toHaveCount(4);
  // met or missed in words; a target missed on some held-out corpora says on how many
  for (const card of await headline.all()) await expect(card.locator('.figure-budget')).toContainText(/— (met|missed)( \(on \d+ of \d+ held-out sets\))?$/);
  await expect(page.getByTestId('target-summary')).toContainText(/Meets \d of 4 targets/);
  // what the adjudicated bands decide alone and leave to an LLM adjudicator, said in words
  await expect(page.getByTestId('adjudicated')).toContainText(/ADJUDICATOR=model.*leave \d+(\.\d)?% to the adjudicator/s);
  // S-108: what the refusals claimed, the committed record's counts (read from the file, not from the agent)
  const record = JSON.parse(readFileSync(RECORD, 'utf8')) as { refusalsClaimingAbsent: number; answerableClaimedAbsent: number };
  await expect(page.getByTestId('refusal-claims')).toContainText(
    record.refusalsClaimingAbsent === 0
      ? 'none of the refusals said the library does not answer the question'
      : `${record.refusalsClaimingAbsent} refusals said the library does not answer the question, ${record.answerableClaimedAbsent} of them of answerable questions`,
  );
  // one row per held-out corpus and the pooled row, each corpus with its status
  const corpora = page.locator('[data-testid="corpus-table"] tbody tr');
  expect(await corpora.count()).toBeGreaterThan(2);
  await expect(corpora.first().locator('td[data-status]')).toHaveAttribute('data-status', /^(seen|unseen|not recorded)$/);
  await expect(page.locator('[data-testid="corpus-table"] tr[data-corpus="pooled"]')).toBeVisible();
  await expect(page.locator('#generated h2')).toContainText('upper bound');

  const low = page.locator('svg.distribution .threshold-low');
  const high = page.locator('svg.distribution .threshold-high');
  await expect(low).toContainText('refuse below');
  await expect(high).toContainText('answer from');
  await expect(page.getByTestId('in-sample')).toContainText('In-sample');
  const lowX = await low.locator('line').getAttribute('x1');
  const refusals = page.locator('table.rates tr[data-rate="falseRefusalRate"] td').nth(2);
  const refusalsBefore = await refusals.textContent();
  // refuse below the top of the scale: the band lines follow the slider (both: the answer line is pushed along)
  await page.getByRole('slider', { name: 'Refuse below' }).focus();
  await page.keyboard.press('End');
  await expect(page.getByTestId('below-value')).toHaveText('1.000');
  await expect(low).toHaveAttribute('data-value', '1.000');
  await expect(high).toHaveAttribute('data-value', '1.000');
  expect(await low.locator('line').getAttribute('x1')).not.toBe(lowX);
  await expect(refusals).not.toHaveText(refusalsBefore ?? '');
  await expect(page.getByTestId('change-count')).not.toContainText(/^0 /);
  await expect(page.locator('table.changes tbody tr').first()).toBeVisible();
  await shot(page, '16-evaluation');
});

test('evaluation says how to produce one when none exists', async ({ page }) => {
  await page.goto(`http://127.0.0.1:${PORTS.webFaults}/evaluation`);
  await expect(page.getByText('npm run eval:report')).toBeVisible();
  await shot(page, '17-evaluation-none');
});

test('architecture draws the graph the agent reports, with files', async ({ page }) => {
  await page.goto('/architecture');
  const svg = page.locator('svg.graph-diagram');
  await expect(svg).toBeVisible();
  for (const node of ['await_approval', 'emit', 'refuse', 'escalate']) await expect(svg.locator(`[data-node="${node}"]`)).toHaveCount(1);
  await expect(page.locator('tr[data-node="await_approval"] .file-path')).toBeVisible();
  await expect(page.locator('.request-path .hop')).toHaveCount(5);
  await shot(page, '18-architecture');
});

test('every page names its icon, and the icon is there', async ({ page, request }) => {
  for (const path of ['/', '/runs', '/data', '/evaluation', '/architecture']) {
    await page.goto(path);
    const icon = page.locator('head link[rel="icon"]').first();
    await expect(icon, path).toHaveAttribute('href', /./, { timeout: 5_000 });
    const href = await icon.getAttribute('href');
    const res = await request.get(href!);
    expect(res.status()).toBe(200);
    expect(res.headers()['content-type']).toMatch(/^image\//);
  }
});
