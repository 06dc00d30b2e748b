import { expect, test } from '@playwright/test';
import { shot } from './helpers';

test.use({ javaScriptEnabled: false });

test('the data page renders every document with passage anchors, without JavaScript', async ({ page }) => {
  await page.goto('/data');
  await expect(page.getByRole('heading', { name: 'The estate' })).toBeVisible();
  await expect(page.locator('svg.estate-graph')).toBeVisible();
  await expect(page.locator('svg.estate-graph .svc').first()).toBeVisible();
  expect(await page.locator('article.corpus-doc').count()).toBeGreaterThan(10);
  const anchor = page.locator('section.passage-section[id^="chunk-"]').first();
  await expect(anchor).toHaveAttribute('data-chunk', /#/);
  await expect(page.locator('#faults .fault').first()).toContainText('Runbook');
  await expect(page.locator('#gaps table.gaps tbody tr').first()).toBeVisible();
  await expect(page.locator('#gaps')).toContainText('Corrections');
  await expect(page.locator('#questions table.mechanisms tbody tr').first()).toBeVisible();
  // markdown is rendered, not echoed
  await expect(page.locator('article.corpus-doc').first()).not.toContainText('## ');
  await shot(page, '13-data-no-js');
});

test('a question asked without JavaScript runs server-side and shows the finished run', async ({ page }) => {
  await page.goto('/');
  await expect(page.locator('form.console-form[data-enhanced="false"]')).toBeVisible();
  // presets are links that pre-fill the form
  await page.locator('a.preset[data-preset="unanswerable"]').click();
  await expect(page.getByLabel('Question')).toHaveValue('How do we rotate DNS records for the storefront?');
  await page.getByLabel('Question').fill('What is the connection pool ceiling for orders-db?');
  await page.getByRole('button', { name: 'Ask' }).click();
  await expect(page).toHaveURL(/\/runs\/[^/]+$/);
  await expect(page.locator('.outcome-banner')).toHaveAttribute('data-verdict', 'answered');
  await expect(page.locator('.timeline .step').first()).toBeVisible();
  // the footnote still opens the passage: <details> is native
  const cite = page.locator('details.cite').first();
  await cite.locator('summary').click();
  await expect(cite.locator('.passage')).toBeVisible();
  await shot(page, '14-run-no-js');
});

test('the evaluation page works without JavaScript: headline, figure, and the band form moving the lines', async ({ page }) => {
  await page.goto('/evaluation');
  await expect(page.getByRole('heading', { name: 'Leave-one-corpus-out (the headline)' })).toBeVisible();
  await expect(page.locator('[data-testid="corpus-table"] tbody tr').first()).toBeVisible();
  const figure = page.locator('svg.distribution');
  await expect(figure.locator('.threshold-low line')).toHaveCount(1);
  await expect(figure.locator('.threshold-high line')).toHaveCount(1);
  // the GET form: the server replays the verdicts and draws the lines where the query puts them
  await page.goto('/evaluation?below=0.99&above=0.995#what-if');
  await expect(figure.locator('.threshold-low')).toHaveAttribute('data-value', '0.990');
  await expect(figure.locator('.threshold-high')).toHaveAttribute('data-value', '0.995');
  await expect(page.getByTestId('change-count')).not.toContainText(/^0 /);
  await expect(page.getByTestId('in-sample')).toBeVisible();
  // the form's own button submits the slider positions
  await page.getByRole('button', { name: 'Show changes' }).click();
  await expect(page).toHaveURL(/below=0\.99/);
  await shot(page, '16-evaluation-no-js');
});
