import { expect, test } from '@playwright/test';
import { shot } from './helpers';

/*
 * Issue 13, website item 5: the node table sat in a column beside the graph,
 * squeezed until its file paths wrapped every few characters (a 5,600 px page),
 * and its files were plain text although the README says each box links to its
 * file. Measured, not screenshot-diffed.
 */

test('the node table has room: every file path on one line, the page not a tower', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto('/architecture');
  const table = page.locator('table:has(tr[data-node])');
  await expect(table).toBeVisible();
  const paths = table.locator('tr[data-node] .file-path');
  expect(await paths.count()).toBeGreaterThan(5);
  // The lines a path spans: its inline fragments' distinct tops (a wrapped path has fragments on more than one line).
  const lines = await paths.evaluateAll((els) =>
    els.map((e) => ({ path: e.textContent, lines: new Set([...e.getClientRects()].map((r) => Math.round(r.top))).size })),
  );
  expect(lines.filter((l) => l.lines !== 1)).toEqual([]);
  const box = (await table.boundingBox())!;
  expect(box.width).toBeGreaterThan(700);
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  expect(height).toBeLessThan(3200);
  await shot(page, 'architecture-wide');
});

test('every file on the architecture page is a link to a page that shows it', async ({ page }) => {
  await page.goto('/architecture');
  // the node table
  const rows = page.locator('tr[data-node]:has(.file-path)');
  const n = await rows.count();
  expect(n).toBeGreaterThan(5);
  for (const row of await rows.all()) {
    const link = row.locator('a.file-path');
    await expect(link).toHaveCount(1);
    const path = (await link.textContent())!.trim();
    await expect(link).toHaveAttribute('href', `/architecture/source/${path}`);
  }
  // the request path's boxes
  const hopFiles = page.locator('.request-path .hop-files li');
  expect(await hopFiles.count()).toBeGreaterThan(5);
  await expect(page.locator('.request-path .hop-files li:not(:has(a.file-path))')).toHaveCount(0);
  // the graph's boxes (README: "each box linked to its file")
  const retrieveBox = page.locator('svg.graph-diagram a:has([data-node="retrieve"])');
  await expect(retrieveBox).toHaveCount(1);
  const boxHref = await retrieveBox.getAttribute('href');
  expect(boxHref).toMatch(/^\/architecture\/source\/packages\/engine\/src\/orchestrator\/nodes\/retrieve\.ts$/);

  // following one shows the file itself
  await page.locator('tr[data-node="retrieve"] a.file-path').click();
  await expect(page).toHaveURL(/\/architecture\/source\/packages\/engine\/src\/orchestrator\/nodes\/retrieve\.ts$/);
  await expect(page.getByRole('heading', { level: 1 })).toContainText('retrieve.ts');
  await expect(page.locator('pre.source')).toContainText('export');
  await shot(page, 'architecture-source-file');

  // a folder the request path names lists its files, each a link that shows it
  await page.goto('/architecture');
  await page.locator('.request-path a.file-path', { hasText: 'apps/agent/src/http' }).click();
  const appFile = page.locator('ul.source-entries a', { hasText: /^app\.ts$/ });
  await expect(appFile).toBeVisible();
  await appFile.click();
  await expect(page.locator('pre.source')).toContainText('createApp');
});

test('the source page shows only the files the architecture page names', async ({ page }) => {
  for (const path of [
    'package.json',
    'apps/web/lib/web-config.ts',
    'apps/agent/src/http/..%2F..%2F..%2F..%2Fpackage.json',
    '..%2F..%2Fetc%2Fpasswd',
    'apps/agent/src/config.ts',
    'apps/agent/src/http/testing',
  ]) {
    const res = await page.goto(`/architecture/source/${path}`);
    expect(res?.status(), path).toBe(404);
  }
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Not found');
});
