import { expect, type Locator, type Page, test } from '@playwright/test';
import { askLive, consoleReady, shot } from './helpers';

/*
 * Issue 13: a run's verdict (the gate's) and terminal (where it stopped) were
 * shown as two banners that could contradict each other — a green "Answered"
 * above "Stopped for approval", or above an escalation with no claims. The
 * page shows one outcome, in one status banner, on the console and on the
 * run's own page; and the proposed action cites the answer by footnote
 * instead of repeating it with raw chunk ids.
 */

test.skip(process.env.E2E_AGENT === 'fake', 'the fake agent neither escalates nor scores risk as the real one does; this spec reads the real agent');

/** The one status banner in `scope`, which must say `title` and must not say Answered. */
async function onlyBanner(scope: Locator, outcome: string, title: string): Promise<void> {
  const banner = scope.getByRole('status');
  await expect(banner).toHaveCount(1);
  await expect(banner).toContainText(title);
  await expect(banner).not.toContainText('Answered');
  await expect(banner).toHaveAttribute('data-outcome', outcome);
}

async function providerNames(page: Page): Promise<string[]> {
  const boxes = page.locator('input[name="failProviders"]');
  await expect(boxes.first()).toBeVisible();
  return boxes.evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value));
}

test('every provider broken: one Escalated banner, no answer, on the console, the run page and the runs list', async ({ page }) => {
  await consoleReady(page);
  // A question no other spec asks: a cached draft would be served without calling a provider.
  await askLive(page, 'Who approves an emergency change?', { breakProviders: await providerNames(page) });
  const run = page.locator('.live-run');
  await onlyBanner(run, 'escalated', 'Escalated — no answer; a person takes over');
  await expect(run.locator('.claims')).toHaveCount(0);
  await shot(page, 'outcome-console-escalated');

  const runId = (await run.getAttribute('data-run-id'))!;
  await run.getByRole('link', { name: /Open the run record/ }).click();
  await expect(page).toHaveURL(new RegExp(`/runs/${runId}$`));
  await onlyBanner(page.locator('article.run-page'), 'escalated', 'Escalated');

  await page.goto('/runs');
  const row = page.locator(`tr[data-run-id="${runId}"]`);
  await expect(row.locator('.tag-outcome-escalated')).toHaveText('escalated');
  await expect(row).not.toContainText('answered');
});

test('a gated change: Stopped for approval is the only headline, and the action cites the answer by footnote', async ({ page }) => {
  await consoleReady(page);
  await askLive(page, 'Can we raise the orders-db connection pool ceiling during an incident?', { workload: 'change' });
  const run = page.locator('.live-run');
  await onlyBanner(run, 'awaiting_approval', 'Stopped for approval');

  // The action is said once: no claim repeated, no raw chunk id, footnotes that lead to the answer's sources.
  const action = run.locator('section[aria-label="Proposed action"] .action-text');
  await expect(action).toContainText('Change under review');
  const claim = (await run.locator('.claim .claim-text').first().innerText()).trim();
  expect(claim.length).toBeGreaterThan(10);
  await expect(action).not.toContainText(claim);
  await expect(action).not.toContainText('#');
  const ref = action.locator('a.footnote-ref').first();
  await expect(ref).toHaveText('[1]');
  await ref.click();
  await expect(page).toHaveURL(/#source-1$/);
  await expect(run.locator('.sources li:target')).toContainText(await run.locator('.sources li').first().innerText());
  await shot(page, 'outcome-console-gated-action-footnotes');
});
