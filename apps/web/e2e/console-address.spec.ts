import { expect, test } from '@playwright/test';
import { askLive, consoleReady } from './helpers';

/*
 * S-239 (a colleague's black-box audit of the website, 2026-12-07): the console kept no link to its run. The address
 * stayed `/` through "✓ Answered", so a reload, or Back from "Open the run record →", lost the question and its answer.
 * The console now replaces its address with `/?run=<id>` once the run has an id, and the page reads that run back.
 */

const QUESTION = 'What is the connection pool ceiling for orders-db?';

test.describe('the console’s address keeps its run', () => {
  test('the address names the run, and a reload shows the question and its answer again', async ({ page }) => {
    await consoleReady(page);
    await askLive(page, QUESTION);
    const runId = await page.locator('.live-run').getAttribute('data-run-id');
    expect(runId).toBeTruthy();
    await expect(page).toHaveURL(`/?run=${runId}`);
    const verdict = await page.locator('.live-run .outcome-banner').getAttribute('data-verdict');

    await page.reload();
    await expect(page.getByLabel('Question')).toHaveValue(QUESTION);
    const shown = page.locator(`.live-run[data-run-id="${runId}"]`);
    await expect(shown).toContainText('The run you asked here');
    await expect(shown.locator('.outcome-banner')).toHaveAttribute('data-verdict', verdict!);
    await expect(shown.getByRole('link', { name: 'Open the run record →' })).toHaveAttribute('href', `/runs/${runId}`);
  });

  test('Back from the run’s record comes back to the run, not to an empty console', async ({ page }) => {
    await consoleReady(page);
    await askLive(page, QUESTION);
    const runId = await page.locator('.live-run').getAttribute('data-run-id');
    await page.getByRole('link', { name: 'Open the run record →' }).click();
    await expect(page).toHaveURL(`/runs/${runId}`);
    await page.goBack();
    await expect(page).toHaveURL(`/?run=${runId}`);
    await expect(page.getByLabel('Question')).toHaveValue(QUESTION);
    await expect(page.locator(`.live-run[data-run-id="${runId}"] .outcome-banner`)).toBeVisible();
  });

  test('another query is kept, and a new question drops the run it replaces', async ({ page }) => {
    await page.goto('/?workload=postmortem');
    await expect(page.locator('form.console-form[data-enhanced="true"]')).toBeVisible();
    await askLive(page, QUESTION);
    const first = await page.locator('.live-run').getAttribute('data-run-id');
    await expect(page).toHaveURL(`/?workload=postmortem&run=${first}`);
    // askLive waits for a finished run, and the first one is: wait for another id instead.
    await page.getByLabel('Question').fill('How do we rotate DNS records for the storefront?');
    await page.getByRole('button', { name: 'Ask' }).click();
    await expect(page.locator(`.live-run[data-done="true"]:not([data-run-id="${first}"])`)).toBeVisible({ timeout: 60_000 });
    const second = await page.locator('.live-run').getAttribute('data-run-id');
    expect(second).not.toBe(first);
    await expect(page).toHaveURL(`/?workload=postmortem&run=${second}`);
  });
});
