import { expect, test } from '@playwright/test';
import { shot } from './helpers';

test('runs list links every run', async ({ page }) => {
  await page.goto('/runs');
  await expect(page.getByRole('heading', { name: 'Runs' })).toBeVisible();
  const rows = page.locator('table.runs-table tbody tr');
  expect(await rows.count()).toBeGreaterThan(0);
  await shot(page, '15-runs');
  await rows.first().locator('a').first().click();
  await expect(page).toHaveURL(/\/runs\/[^/]+$/);
  await expect(page.locator('.timeline')).toBeVisible();
});

test('evaluation: figures, the distribution with both thresholds, and the slider', async ({ page }) => {
  await page.goto('/evaluation');
  if ((await page.locator('svg.distribution').count()) === 0) {
    await expect(page.getByText('npm run eval:report')).toBeVisible();
    await shot(page, '16-evaluation-empty');
    return;
  }
  await expect(page.locator('.figure-card').first()).toBeVisible();
  await expect(page.locator('svg.distribution .threshold-low')).toContainText('refuse below');
  await expect(page.locator('svg.distribution .threshold-high')).toContainText('answer from');
  await expect(page.getByTestId('change-count')).toContainText(/^0 questions change/);
  // refuse below the top of the scale: every scored question that was not already refused changes band
  await page.getByRole('slider', { name: 'Refuse below' }).focus();
  await page.keyboard.press('End');
  await expect(page.getByTestId('change-count')).not.toContainText(/^0 /);
  await expect(page.locator('table.changes tbody tr').first()).toBeVisible();
  await shot(page, '16-evaluation');
});

test('evaluation says how to produce one when none exists', async ({ page }) => {
  await page.goto('http://127.0.0.1:3101/evaluation');
  await expect(page.getByText('npm run eval:report')).toBeVisible();
  await shot(page, '17-evaluation-none');
});

test('architecture draws the graph the agent reports, with files', async ({ page, request }) => {
  await page.goto('/architecture');
  const svg = page.locator('svg.graph-diagram');
  await expect(svg).toBeVisible();
  for (const node of ['await_approval', 'emit', 'refuse', 'escalate']) await expect(svg.locator(`[data-node="${node}"]`)).toHaveCount(1);
  await expect(page.locator('tr[data-node="await_approval"] .file-path')).toBeVisible();
  await expect(page.locator('.request-path .hop')).toHaveCount(5);
  await shot(page, '18-architecture');
});
