import { expect, type Page, test } from '@playwright/test';
import { shot } from './helpers';

/*
 * Issue 13, website item 5, the runs pages: an unknown run answered 200; the
 * list said "awaiting approval" for a run that had been approved; on a phone
 * the outcome column was off the side of the table.
 */

/** A change the real agent gates (the console's change preset). */
const GATED_CHANGE = 'Should we fail over orders-db to the replica?';

/** Ask without JavaScript's help (the console's plain form post) and return the new run's id. */
async function ask(page: Page, question: string, workload: string): Promise<string> {
  const res = await page.request.post('/api/runs', { form: { question, workload }, maxRedirects: 0 });
  expect(res.status()).toBe(303);
  const id = /^\/runs\/([^/?#]+)$/.exec(res.headers().location ?? '')?.[1];
  expect(id, `redirected to ${res.headers().location}`).toBeTruthy();
  return decodeURIComponent(id!);
}

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

test('the runs list says a gated run was approved, and links the run that approved it', async ({ page }) => {
  test.skip(process.env.E2E_AGENT === 'fake', 'the fake agent does not gate changes');
  const gated = await ask(page, GATED_CHANGE, 'change');
  const waiting = await ask(page, GATED_CHANGE, 'change');
  const approve = await page.request.post(`/api/runs/${encodeURIComponent(gated)}/approve`, { maxRedirects: 0 });
  expect(approve.status()).toBe(303);
  const child = decodeURIComponent(/^\/runs\/([^/?#]+)\?approvedFrom=/.exec(approve.headers().location ?? '')?.[1] ?? '');
  expect(child).not.toBe('');

  await page.goto('/runs');
  const approvedRow = page.locator(`tr[data-run-id="${gated}"]`);
  await expect(approvedRow).toBeVisible();
  await expect(approvedRow).not.toContainText('awaiting approval');
  await expect(approvedRow.locator('[data-approval="approved"]')).toContainText('approved');
  await expect(approvedRow.locator(`a[href="/runs/${child}"]`)).toBeVisible();
  // one still waiting says so
  await expect(page.locator(`tr[data-run-id="${waiting}"]`)).toContainText('awaiting approval');
  await shot(page, 'runs-approved');
});

test('on a phone the runs table keeps the outcome in view', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  // at least one finished run to look at
  await ask(page, 'What is the connection pool ceiling for orders-db?', 'triage');
  await page.goto('/runs');
  const table = page.locator('table.runs-table');
  await expect(table).toBeVisible();
  const headers = await table.locator('thead th').allTextContents();
  const outcomeColumn = headers.findIndex((h) => h.trim().toLowerCase() === 'outcome');
  expect(outcomeColumn).toBeGreaterThanOrEqual(0);
  const cells = table.locator(`tbody tr td:nth-child(${outcomeColumn + 1})`);
  expect(await cells.count()).toBeGreaterThan(0);
  for (const cell of (await cells.all()).slice(0, 5)) {
    await expect(cell).toBeVisible();
    const box = (await cell.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
  }
  // nothing of the table is hidden off the side: it fits without scrolling
  const scroll = await page.locator('.table-scroll:has(table.runs-table)').evaluate((e) => ({ scrollWidth: e.scrollWidth, clientWidth: e.clientWidth }));
  expect(scroll.scrollWidth).toBeLessThanOrEqual(scroll.clientWidth);
  await shot(page, 'runs-phone');
});

test('a page past the last says so and links the last page, not "No runs yet"', async ({ page }) => {
  await ask(page, 'What is the connection pool ceiling for orders-db?', 'triage');
  for (const n of ['999', '99999999999999999999']) {
    await page.goto(`/runs?page=${n}`);
    if (n === '999') {
      await expect(page.getByTestId('past-last-page')).toContainText('Page 999 is past the last page of runs.');
      await page.getByRole('link', { name: 'Go to the last page' }).click();
      await expect(page.locator('table.runs-table tbody tr').first()).toBeVisible();
    } else {
      // Not a page number the agent can take: the newest runs, never the question form's "not accepted".
      await expect(page.locator('table.runs-table tbody tr').first()).toBeVisible();
      await expect(page.locator('main')).not.toContainText('not accepted');
    }
    await expect(page.locator('main')).not.toContainText('No runs yet');
  }
});
