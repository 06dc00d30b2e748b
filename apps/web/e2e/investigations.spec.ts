import { expect, type Page, test } from '@playwright/test';
import { shot } from './helpers';

/*
 * Issue 10's Done-when, in a browser against the real agent: create an
 * investigation, upload a 5,000-line log and a JSON config, ask two turns (the
 * second only makes sense after the first), follow a citation to the cited
 * lines, see the metrics under each answer, reload and still see them. Bad
 * input — a binary file, an empty message — is refused in words, and nothing
 * is lost. The providers are the e2e stubs, which act as a small tool-calling
 * investigator (stub-providers.mts), so the turn is the agent's real loop.
 */

/** Where the error burst is in the generated log: a follow-up about "when it started" must land on its first line. */
const BURST = { start: 3120, end: 3139 } as const;

function incidentLog(): string {
  const lines: string[] = [];
  const t0 = Date.UTC(2024, 4, 1, 10, 0, 0);
  for (let n = 1; n <= 5000; n++) {
    const at = new Date(t0 + n * 1000).toISOString();
    lines.push(
      n >= BURST.start && n <= BURST.end
        ? `${at} ERROR checkout-api upstream orders-db timed out after 5000ms (pool exhausted) request=${n}`
        : `${at} INFO checkout-api GET /cart 200 ${10 + (n % 50)}ms request=${n}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

const CONFIG = `${JSON.stringify({ 'orders-db': { pool: { max: 100, timeoutMs: 5000 } }, 'checkout-api': { upstreamTimeoutMs: 5000 } }, null, 2)}\n`;

async function upload(page: Page, name: string, content: string | Buffer, mimeType = 'text/plain'): Promise<void> {
  await page.locator('#upload-file').setInputFiles({ name, mimeType, buffer: Buffer.isBuffer(content) ? content : Buffer.from(content) });
  await page.getByRole('button', { name: 'Upload', exact: true }).click();
  await page.waitForURL(/\/investigations\/[^/?#]+\?/);
}

async function ask(page: Page, message: string): Promise<void> {
  await page.getByLabel('Message').fill(message);
  await page.getByRole('button', { name: 'Ask', exact: true }).click();
  await page.waitForURL(/#(message-\d+|ask)$/, { timeout: 60_000 });
}

/** What a person reads under an answer: its file citations and its metrics. */
async function expectCitedAndMeasured(answer: ReturnType<Page['locator']>, cited: RegExp): Promise<void> {
  await expect(answer.locator('a.cite-link').first()).toHaveText(cited);
  const metrics = answer.getByTestId('turn-metrics');
  await expect(metrics).toBeVisible();
  for (const m of ['promptTokens', 'completionTokens']) await expect(metrics.locator(`[data-metric="${m}"]`)).toHaveText(/^[1-9]\d*$/);
  await expect(metrics.locator('[data-metric="elapsedMs"]')).toHaveText(/\d.*m?s$/);
  await expect(metrics.locator('[data-metric="costUsd"]')).toHaveText(/^\$/);
  await expect(metrics.locator('[data-metric="provider"]')).toHaveText(/\S/);
}

test('an investigation: upload a 5,000-line log and a config, ask and follow up, open the cited lines, reload and still see the answers with their metrics', async ({
  page,
}) => {
  await page.goto('/investigations');
  await page.getByLabel('Title').fill('checkout 502s 2024-05-01');
  await page.getByRole('button', { name: 'Create' }).click();
  await page.waitForURL(/\/investigations\/[0-9a-f-]{36}$/);
  await expect(page.getByRole('heading', { name: 'checkout 502s 2024-05-01' })).toBeVisible();
  const workspace = page.url();

  await upload(page, 'app.log', incidentLog());
  await upload(page, 'config.json', CONFIG, 'application/json');
  await expect(page.locator('tr[data-file="app.log"][data-status="ok"]')).toBeVisible();
  await expect(page.locator('tr[data-file="config.json"][data-status="ok"]')).toBeVisible();

  // Bad input: a binary file is refused with the reason, and the files already there stay.
  await upload(page, 'core.bin', Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x00, 0x00, 0x01, 0xff, 0xfe, 0x00]), 'application/octet-stream');
  await expect(page.locator('#files [role="alert"]')).toContainText('only text files are accepted');
  await expect(page.locator('tr[data-file="core.bin"]')).toHaveCount(0);
  await expect(page.locator('tr[data-file]')).toHaveCount(2);

  await ask(page, 'Why did checkout return errors?');
  const answers = page.locator('li.message-assistant');
  await expect(answers).toHaveCount(1);
  await expectCitedAndMeasured(answers.nth(0), /^app\.log:31[2-3]\d(-31[2-3]\d)?$/);
  await expect(answers.nth(0).locator('li.tool-card').first()).toHaveAttribute('data-tool', /\w/);

  // The follow-up names nothing: only the first turn says what "it" is.
  await ask(page, 'and when did it start?');
  await expect(answers).toHaveCount(2);
  await expectCitedAndMeasured(answers.nth(1), new RegExp(`^app\\.log:${BURST.start}(-\\d+)?$`));

  // Bad input: an empty message asks nothing and says so.
  await page.getByLabel('Message').fill('   ');
  await page.getByRole('button', { name: 'Ask', exact: true }).click();
  await expect(page.locator('#ask [role="alert"]')).toContainText('Nothing was asked');
  await expect(page.locator('li.message')).toHaveCount(4);
  // A message over the agent's limit is refused with the limit named, and what was typed stays in the box.
  const long = `why did checkout fail ${'and then '.repeat(170)}?`;
  await page.getByLabel('Message').fill(long);
  await page.getByRole('button', { name: 'Ask', exact: true }).click();
  await expect(page.locator('#ask [role="alert"]')).toContainText('MAX_QUESTION_CHARS');
  await expect(page.getByLabel('Message')).toHaveValue(long);
  await expect(page.locator('li.message')).toHaveCount(4);
  await shot(page, '40-investigation');

  // Reload: the conversation, the citations and the metrics are read back from the store.
  await page.goto(workspace);
  await expect(answers).toHaveCount(2);
  await expectCitedAndMeasured(answers.nth(0), /^app\.log:31[2-3]\d(-31[2-3]\d)?$/);
  await expectCitedAndMeasured(answers.nth(1), new RegExp(`^app\\.log:${BURST.start}(-\\d+)?$`));

  // A citation opens the file at the cited lines: numbered, highlighted, scrolled to.
  await answers.nth(1).locator('a.cite-link').first().click();
  await page.waitForURL(new RegExp(`/files/app\\.log\\?lines=${BURST.start}-\\d+&at=[^#]+#L${BURST.start}$`));
  const citation = page.url();
  await expect(page.getByTestId('file-replaced')).toHaveCount(0);
  const line = page.locator(`tr#L${BURST.start}`);
  await expect(line).toHaveAttribute('data-cited', 'true');
  await expect(line).toContainText('ERROR checkout-api');
  await expect(line).toBeInViewport();
  // A page holds 1,000 lines from a little before the citation, and the way to the rest (a 10 MB log was 74 MB of HTML).
  await expect(page.getByTestId('file-window').first()).toContainText('Lines 2,920–3,919 of 5,000');
  await expect(page.locator('tr#L2919')).toHaveCount(0);
  await shot(page, '41-investigation-file');
  await page.getByTestId('file-window').first().getByRole('link', { name: 'later lines' }).click();
  await expect(page.getByTestId('file-window').first()).toContainText('Lines 3,920–4,919 of 5,000');
  await expect(page.locator('tr#L4919')).toBeVisible();

  // A cited range past the last line (the file was replaced since) says so, rather than highlighting nothing.
  await page.goto(page.url().replace(/\?lines=[^#]*(#.*)?$/, '?lines=9000-9010'));
  await expect(page.getByTestId('cited-past-end')).toContainText('lines 9000–9010 are past the end of this file, which has 5,000 lines');

  // A file uploaded again under its name after the answer: the old citation says the lines may have moved.
  await page.goto(workspace);
  await upload(page, 'app.log', `one more line at the top\n${incidentLog()}`);
  await page.goto(citation);
  await expect(page.getByTestId('file-replaced')).toContainText('after the answer that cited it');
});
