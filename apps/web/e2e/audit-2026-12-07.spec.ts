import { expect, test } from '@playwright/test';
import { consoleReady } from './helpers';

/* What a colleague's black-box audit of the website (2026-12-07) found only a browser shows. */

// S-226: a question of spaces was dropped by the enhanced console without a word.
test('a question of spaces is refused in words with JavaScript on, as it is without', async ({ page }) => {
  await consoleReady(page);
  await page.getByLabel('Question').fill('   ');
  await page.getByRole('button', { name: 'Ask' }).click();
  const problem = page.locator('.live-run .problem[data-problem="invalid_request"]');
  await expect(problem).toBeVisible();
  await expect(problem).toContainText('question: type a question first.');
});

// S-225: each footnote's <details> sat in a <p>, which the parser closed before it: React's hydration error #418 on
// every run page with a cited answer, and each "[1]" on a line of its own with JavaScript off.
test('a run page with a cited answer hydrates without an error, each footnote inside its claim', async ({ page }) => {
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto('/');
  await page.getByLabel('Question').fill('What is the connection pool ceiling for orders-db?');
  await page.getByRole('button', { name: 'Ask' }).click();
  await expect(page.locator('.live-run[data-done="true"]')).toBeVisible({ timeout: 60_000 });
  await page.locator('.live-run a', { hasText: 'Open the run record' }).click();
  await expect(page.locator('article.run-page details.cite').first()).toBeAttached();
  // Given time to hydrate: the error is thrown then.
  await page.waitForLoadState('networkidle');
  expect(errors.filter((e) => /#418|hydrat/i.test(e))).toEqual([]);
  // As the browser built it: every footnote still inside its claim, none left between paragraphs.
  expect(await page.locator('.claims details.cite').count()).toBe(await page.locator('.claims .claim details.cite, .claims .claim-code details.cite').count());
});
