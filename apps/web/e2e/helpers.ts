import path from 'node:path';
import { expect, type Page } from '@playwright/test';

const SHOTS = path.join(typeof __dirname === 'string' ? __dirname : process.cwd(), '..', 'test-results', 'screenshots');

/** A full-page screenshot under test-results/screenshots/, for a person to look at. */
export async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

/** The console's client component has hydrated: submitting now streams instead of posting. */
export async function consoleReady(page: Page, base = ''): Promise<void> {
  await page.goto(`${base}/`);
  await expect(page.locator('form.console-form[data-enhanced="true"]')).toBeVisible();
}

/** Fill the question and ask, with JavaScript on; resolves when the run's result (or problem) is on the page. */
export async function askLive(page: Page, question: string, options: { workload?: string; breakProviders?: string[] } = {}): Promise<void> {
  await page.getByLabel('Question').fill(question);
  if (options.workload) await page.locator(`input[name="workload"][value="${options.workload}"]`).check();
  for (const p of options.breakProviders ?? []) await page.locator(`input[name="failProviders"][value="${p}"]`).check();
  await page.getByRole('button', { name: 'Ask' }).click();
  await expect(page.locator('.live-run[data-done="true"]')).toBeVisible({ timeout: 60_000 });
}
