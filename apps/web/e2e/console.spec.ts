import { expect, test } from '@playwright/test';
import { askLive, consoleReady, shot } from './helpers';

test.describe('console, JavaScript on', () => {
  test('the answerable preset answers, and a citation opens its passage', async ({ page }) => {
    await consoleReady(page);
    await shot(page, '01-console-empty');
    await page.locator('a.preset[data-preset="answerable"]').click();
    await expect(page.getByLabel('Question')).toHaveValue('What is the connection pool ceiling for orders-db?');
    await page.getByRole('button', { name: 'Ask' }).click();

    // streamed node by node, then the result
    await expect(page.locator('.live-run .step').first()).toBeVisible();
    await expect(page.locator('.live-run[data-done="true"]')).toBeVisible({ timeout: 60_000 });
    const verdict = page.locator('.live-run .outcome-banner');
    await expect(verdict).toHaveAttribute('data-verdict', 'answered');
    await expect(verdict).toContainText('Answered');
    await expect(page.locator('.live-run .step[data-node="assess_evidence"]')).toBeVisible();

    const claim = page.locator('.live-run .claim').first();
    await expect(claim).toContainText('100');
    const cite = claim.locator('details.cite').first();
    await expect(cite.locator('.passage')).toBeHidden();
    await cite.locator('summary').click();
    await expect(cite.locator('.passage')).toBeVisible();
    await expect(cite.locator('.passage-body')).toContainText('connections');
    await shot(page, '02-console-answered-citation-open');

    // S-190: the closest passages the answer does not cite are linked under it, never among its sources.
    const beside = page.locator('.live-run [data-testid="passages-beside"]');
    await expect(beside).toContainText('Also close to the question, not cited');
    const besideIds = await beside.getByRole('link').allTextContents();
    expect(besideIds.length).toBeGreaterThan(0);
    const citedIds = await page.locator('.live-run details.cite').evaluateAll((els) => els.map((e) => e.getAttribute('data-chunk')));
    for (const id of besideIds) expect(citedIds).not.toContain(id);

    // the passage in the library: the data page anchor for that chunk id
    const chunkId = await cite.getAttribute('data-chunk');
    expect(chunkId).toContain('#');
    await cite.getByRole('link', { name: /Open in the library/ }).click();
    await expect(page).toHaveURL(/\/data#chunk-/);
    const target = page.locator('section.passage-section:target');
    await expect(target).toHaveAttribute('data-chunk', chunkId!);
    await expect(target).toBeInViewport();
    await page.screenshot({ path: 'test-results/screenshots/03-data-cited-passage.png' });
  });

  test('the unanswerable preset is refused, unmistakably', async ({ page }) => {
    await consoleReady(page);
    await page.locator('a.preset[data-preset="unanswerable"]').click();
    await page.getByRole('button', { name: 'Ask' }).click();
    await expect(page.locator('.live-run[data-done="true"]')).toBeVisible({ timeout: 60_000 });
    const verdict = page.locator('.live-run .outcome-banner');
    await expect(verdict).toHaveAttribute('data-verdict', 'refused');
    // S-222: rated far below the line, it claims no absence (on the record that claim was false one time in eight); it
    // says the model rates no passage likely and names the closest to read.
    await expect(verdict).toContainText('Refused — not answered: the model is unsure whether the library answers this');
    await expect(verdict).toHaveAttribute('data-refusal', 'unsure');
    await expect(page.locator('.live-run .refusal .reasons li').first()).toContainText('the model rates no passage likely to answer this');
    await expect(page.locator('.live-run .claims')).toHaveCount(0);
    await expect(page.locator('.live-run .refusal .reasons li').first()).toBeVisible();
    // a sentence first; the model's numbers only behind "The numbers" (issue 13, item 3)
    await expect(page.locator('.live-run .refusal > .reasons li').first()).not.toContainText('answerability');
    const numbers = page.getByTestId('reason-numbers');
    await expect(numbers).not.toHaveAttribute('open');
    await expect(numbers.locator('summary')).toHaveText('The numbers');
    await expect(numbers).toContainText(/answerability \d+%/);
    await shot(page, '04-console-refused');

    // S-107: the passage the refusal names as the closest is a link into the library, never an answer; the run's
    // record says the same, and the link lands on that passage. S-172: with the next most likely after it.
    const closest = page.locator('.live-run .refusal .closest-passage');
    await expect(closest).toContainText('most likely first');
    await expect(closest).toContainText('None is given as an answer');
    expect(await closest.getByRole('link').count()).toBeGreaterThan(1);
    const chunkId = await closest.getAttribute('data-chunk');
    expect(chunkId).toContain('#');
    await page.getByRole('link', { name: 'Open the run record →' }).click();
    await expect(page).toHaveURL(/\/runs\//);
    const recorded = page.locator('.refusal .closest-passage');
    await expect(recorded).toHaveAttribute('data-chunk', chunkId!);
    await recorded.getByRole('link', { name: chunkId! }).click();
    await expect(page).toHaveURL(/\/data#chunk-/);
    await expect(page.locator('section.passage-section:target, span.anchor-only:target')).toHaveAttribute('data-chunk', chunkId!);
  });

  // S-108: a refusal the model is unsure of was headed "the library does not answer this" above reasons that said to
  // read the closest passage. Its banner now claims what the gate knows, live and on the run's record.
  test('a refusal the model is unsure of is headed unsure, not absent, live and on its record', async ({ page }) => {
    await consoleReady(page);
    await page.getByLabel('Question').fill('What do I do when OrdersDbPoolSaturated fires?');
    await page.getByRole('button', { name: 'Ask' }).click();
    await expect(page.locator('.live-run[data-done="true"]')).toBeVisible({ timeout: 60_000 });
    const banner = page.locator('.live-run .outcome-banner');
    await expect(banner).toHaveAttribute('data-refusal', 'unsure');
    await expect(banner).toContainText('Refused — not answered: the model is unsure whether the library answers this');
    await expect(banner).not.toContainText('does not answer this');
    await page.getByRole('link', { name: 'Open the run record →' }).click();
    await expect(page).toHaveURL(/\/runs\//);
    await expect(page.locator('.outcome-banner')).toHaveAttribute('data-refusal', 'unsure');
    await expect(page.locator('.outcome-banner')).toContainText('the model is unsure whether the library answers this');
  });

  // S-180: a refusal offered the library's word for a slip ("alret": "it writes “alert”") and left the person to retype
  // the question on whatever keyboard made the slip. It now links the question again with that word, filled in to ask.
  test('a refusal of a question with a slip offers it again with the library’s word, and asked again it is answered', async ({ page }) => {
    await consoleReady(page);
    await askLive(page, 'the replica lag alret fired, what do i do');
    await expect(page.locator('.live-run .outcome-banner')).toHaveAttribute('data-verdict', 'refused');
    const offer = page.locator('.live-run .ask-again a[data-ask-again="the replica lag alert fired, what do i do"]');
    await expect(offer).toBeVisible();
    await shot(page, '05a-console-ask-again');
    await page.getByRole('link', { name: 'Open the run record →' }).click();
    await expect(page).toHaveURL(/\/runs\//);
    const recorded = page.locator('.ask-again a[data-ask-again="the replica lag alert fired, what do i do"]');
    await expect(recorded).toBeVisible();
    await recorded.click();
    await expect(page.locator('form.console-form[data-enhanced="true"]')).toBeVisible();
    await expect(page.getByLabel('Question')).toHaveValue('the replica lag alert fired, what do i do');
    await page.getByRole('button', { name: 'Ask' }).click();
    await expect(page.locator('.live-run[data-done="true"]')).toBeVisible({ timeout: 60_000 });
    await expect(page.locator('.live-run .outcome-banner')).not.toHaveAttribute('data-verdict', 'refused');
    await expect(page.locator('.live-run .ask-again')).toHaveCount(0);
  });

  test('the wrong-entity near miss is not answered with another service’s number', async ({ page }) => {
    await consoleReady(page);
    await page.locator('a.preset[data-preset="near-miss"]').click();
    await page.getByRole('button', { name: 'Ask' }).click();
    await expect(page.locator('.live-run[data-done="true"]')).toBeVisible({ timeout: 60_000 });
    const verdict = page.locator('.live-run .outcome-banner');
    await expect(verdict).not.toHaveAttribute('data-verdict', 'answered');
    await shot(page, '05-console-near-miss');
  });

  test('breaking the first provider shows the failover in the trace', async ({ page }) => {
    await consoleReady(page);
    const providers = page.locator('input[name="failProviders"]');
    await expect(providers.first()).toBeVisible();
    expect(await providers.count()).toBeGreaterThanOrEqual(3); // two stubs + offline
    const first = (await providers.nth(0).getAttribute('value'))!;
    const second = (await providers.nth(1).getAttribute('value'))!;
    // a question no earlier test asked, so no cache can answer it without a model
    await askLive(page, 'How do I respond to ReplicaLagHigh?', { breakProviders: [first] });
    const events = page.locator('.live-run table.provider-events tbody tr');
    await expect(page.locator(`.live-run tr[data-provider="${first}"]`).first()).toHaveAttribute('data-kind', 'injected_failure');
    await expect(page.locator(`.live-run tr[data-provider="${second}"][data-kind="served"]`)).toHaveCount(1);
    const kinds = await events.evaluateAll((rows) => rows.map((r) => `${r.getAttribute('data-provider')}:${r.getAttribute('data-kind')}`));
    expect(kinds.indexOf(`${first}:injected_failure`)).toBeLessThan(kinds.indexOf(`${second}:served`));
    await expect(page.locator('.live-run .failover')).toContainText(`Served by ${second} after ${first}`);
    await shot(page, '06-console-failover');

    // the same failover is in the run's record
    await page.getByRole('link', { name: /Open the run record/ }).click();
    await expect(page.locator(`tr[data-provider="${first}"][data-kind="injected_failure"]`)).toHaveCount(1);
    await expect(page.locator(`tr[data-provider="${second}"][data-kind="served"]`)).toHaveCount(1);
    await shot(page, '07-run-failover');
  });
});
