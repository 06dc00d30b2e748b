import { expect, test } from '@playwright/test';
import { consoleReady, shot } from './helpers';

/** The console's change preset: a change the agent gates (a proposed tier-1 failover; a look-up is never gated, issue 13). */
const GATED_CHANGE = 'Should we fail over orders-db to the replica?';

test('the change preset selects the change workload', async ({ page }) => {
  await consoleReady(page);
  await page.locator('a.preset[data-preset="change"]').click();
  await expect(page.locator('input[name="workload"][value="change"]')).toBeChecked();
  await expect(page.getByLabel('Question')).toHaveValue(GATED_CHANGE);
});

test('the change preset stops for approval; approved, it creates a new run linked both ways', async ({ page }) => {
  await consoleReady(page);
  await page.locator('a.preset[data-preset="change"]').click();
  await expect(page.getByLabel('Question')).toHaveValue(GATED_CHANGE);
  await page.getByRole('button', { name: 'Ask' }).click();
  await expect(page.locator('.live-run[data-done="true"]')).toBeVisible({ timeout: 60_000 });
  await expect(page.locator('.live-run .outcome-banner')).toHaveAttribute('data-outcome', 'awaiting_approval');
  await expect(page.locator('.live-run .outcome-banner')).toContainText('Stopped for approval');
  const gatedId = (await page.locator('.live-run').getAttribute('data-run-id'))!;
  expect(gatedId).not.toBe('');
  await shot(page, '08-console-awaiting-approval');

  await page.getByRole('link', { name: /Open the run record/ }).click();
  await expect(page).toHaveURL(new RegExp(`/runs/${gatedId}$`));
  await shot(page, '09-run-awaiting-approval');
  await page.getByRole('button', { name: /Approve/ }).click();

  // the new run points back at the gated one
  await expect(page).toHaveURL(/\/runs\/[^/?]+\?approvedFrom=/);
  const approvedId = (await page.locator('article.run-page').getAttribute('data-run-id'))!;
  expect(approvedId).not.toBe(gatedId);
  await expect(page.locator('.link-parent')).toHaveAttribute('data-parent', gatedId);
  await expect(page.locator('.run-meta')).toContainText('emit');
  await shot(page, '10-run-approved');

  // and the gated run, unchanged, points forward at it
  await page.locator('.link-parent a').click();
  await expect(page).toHaveURL(new RegExp(`/runs/${gatedId}$`));
  await expect(page.locator(`.link-children a[data-child="${approvedId}"]`)).toBeVisible();
  await expect(page.getByRole('button', { name: /Approve/ })).toHaveCount(0);
  await expect(page.locator('.outcome-banner')).toHaveAttribute('data-outcome', 'awaiting_approval');
  await shot(page, '11-run-gated-linked');
});

test('another browser session cannot approve', async ({ page, browser }) => {
  await consoleReady(page);
  await page.getByLabel('Question').fill(GATED_CHANGE);
  await page.locator('input[name="workload"][value="change"]').check();
  await page.getByRole('button', { name: 'Ask' }).click();
  await expect(page.locator('.live-run[data-done="true"]')).toBeVisible({ timeout: 60_000 });
  const gatedId = (await page.locator('.live-run').getAttribute('data-run-id'))!;

  const other = await browser.newContext();
  const stranger = await other.newPage();
  await stranger.goto(`/runs/${gatedId}`);
  await expect(stranger.locator('.outcome-banner')).toHaveAttribute('data-outcome', 'awaiting_approval');
  await expect(stranger.getByRole('button', { name: /Approve/ })).toHaveCount(0);
  await expect(stranger.locator('.approval')).toContainText('not that session');
  // forcing the form post anyway is refused by the agent, and said so
  const res = await stranger.request.post(`/api/runs/${gatedId}/approve`, { maxRedirects: 0 });
  expect(res.status()).toBe(303);
  expect(res.headers().location).toContain('error=forbidden_session');
  await stranger.goto(res.headers().location!);
  await expect(stranger.locator('.problem[data-problem="forbidden_session"]')).toBeVisible();
  await shot(stranger, '12-run-approval-forbidden');
  await other.close();
});
