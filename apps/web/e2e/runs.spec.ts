import { expect, test } from '@playwright/test';
import { shot } from './helpers';

/*
 * Issue 13, website item 5, the runs pages: an unknown run answered 200; the
 * list said "awaiting approval" for a run that had been approved; on a phone
 * the outcome column was off the side of the table.
 */

test('an unknown run is a 404 with a page that says so', async ({ page }) => {
  for (const id of ['00000000-0000-4000-8000-000000000000', 'no-such-run']) {
    const res = await page.goto(`/runs/${id}`);
    expect(res?.status(), id).toBe(404);
    await expect(page.getByRole('heading', { level: 1 })).toContainText('No such run');
    await expect(page.locator('main')).toContainText(id);
    await expect(page.locator('main').getByRole('link', { name: /all runs/i })).toHaveAttribute('href', '/runs');
  }
  await shot(page, 'run-not-found');
});
