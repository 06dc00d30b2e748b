import { expect, test } from '@playwright/test';
import { shot } from './helpers';
import { PORTS } from './ports';

/* Agent refusals and outages are shown as what they are, with what to do — never a blank page. */

const faults = `http://127.0.0.1:${PORTS.webFaults}`;
const down = `http://127.0.0.1:${PORTS.webDown}`;

const CASES = [
  { hook: '!429', code: 'rate_limited', words: 'Rate limited' },
  { hook: '!402', code: 'budget_exceeded', words: 'Over budget' },
  { hook: '!503', code: 'limiter_unavailable', words: 'fails closed' },
  { hook: '!503db', code: 'store_unavailable', words: 'cannot reach its database' },
  { hook: '!401', code: 'unauthorized', words: 'not authorised' },
] as const;

for (const c of CASES) {
  test(`console names ${c.code} (JavaScript on)`, async ({ page }) => {
    await page.goto(`${faults}/`);
    await expect(page.locator('form.console-form[data-enhanced="true"]')).toBeVisible();
    await page.getByLabel('Question').fill(`${c.hook} anything`);
    await page.getByRole('button', { name: 'Ask' }).click();
    const problem = page.locator(`.problem[data-problem="${c.code}"]`);
    await expect(problem).toBeVisible();
    await expect(problem).toContainText(c.words);
    if (c.code === 'rate_limited') {
      await expect(problem).toContainText('try again in 30 seconds');
      await shot(page, '19-console-rate-limited');
    }
  });
}

test('console names a 429 without JavaScript too', async ({ browser }) => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto(`${faults}/`);
  await page.getByLabel('Question').fill('!429 anything');
  await page.getByRole('button', { name: 'Ask' }).click();
  await expect(page).toHaveURL(/error=rate_limited/);
  await expect(page.locator('.problem[data-problem="rate_limited"]')).toContainText('try again in 30 seconds');
  await expect(page.getByLabel('Question')).toHaveValue('!429 anything');
  await context.close();
});

test('a run that fails after its stream opened says so on the run page', async ({ browser }) => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  await page.goto(`${faults}/`);
  await page.getByLabel('Question').fill('!stream-error anything');
  await page.getByRole('button', { name: 'Ask' }).click();
  await expect(page).toHaveURL(/\/runs\/[^?]+\?error=budget_exceeded/);
  await expect(page.locator('.problem[data-problem="budget_exceeded"]')).toBeVisible();
  await context.close();
});

// With JavaScript the run's stream reaches the console through the BFF, which showed the agent's error event as it
// came: a database lost mid-run ended with the API's remedy ("… DATABASE_URL and GET /healthz."), not the website's.
test('a run that fails after its stream opened says so in the console, with the website’s remedy (JavaScript on)', async ({ page }) => {
  await page.goto(`${faults}/`);
  await expect(page.locator('form.console-form[data-enhanced="true"]')).toBeVisible();
  await page.getByLabel('Question').fill('!stream-error-db anything');
  await page.getByRole('button', { name: 'Ask' }).click();
  const problem = page.locator('.live-run .problem[data-problem="store_unavailable"]');
  await expect(problem).toContainText('The run started but did not finish: it failed while streaming.');
  await expect(problem).toContainText('The agent says: “The agent cannot reach its database');
  await expect(problem).not.toContainText('GET /healthz');
  await expect(page.locator('.live-run')).toHaveAttribute('data-done', 'true');
});

test('agent down: every page says the agent is unreachable and what to do', async ({ page }) => {
  for (const path of ['/', '/runs', '/data', '/evaluation', '/architecture', '/runs/some-run']) {
    const res = await page.goto(`${down}${path}`);
    expect(res?.status(), path).toBeLessThan(500);
    await expect(page.locator('.problem[data-problem="agent_unreachable"]').first(), path).toBeVisible();
    await expect(page.locator('.problem').first(), path).toContainText('npm start');
  }
  await page.goto(`${down}/runs`);
  await shot(page, '20-agent-down');
  await page.goto(`${down}/`);
  await expect(page.locator('form.console-form[data-enhanced="true"]')).toBeVisible();
  await page.getByLabel('Question').fill('What is the connection pool ceiling for orders-db?');
  await page.getByRole('button', { name: 'Ask' }).click();
  await expect(page.locator('.live-run .problem[data-problem="agent_unreachable"]')).toBeVisible();
  await shot(page, '21-console-agent-down');
});

test('a cross-site form post to the BFF is refused', async ({ request }) => {
  const res = await request.post('/api/runs', {
    headers: { origin: 'http://evil.example' },
    form: { question: 'What is the connection pool ceiling for orders-db?' },
    maxRedirects: 0,
  });
  expect(res.status()).toBe(403);
  const approve = await request.post('/api/runs/any-run/approve', { headers: { origin: 'http://evil.example' }, maxRedirects: 0 });
  expect(approve.status()).toBe(403);
});

test('a form door reloaded (a GET) is sent on to its page, not a blank 405', async ({ request }) => {
  for (const [door, page] of [
    ['/api/runs', '/'],
    ['/api/runs/any-run/feedback', '/runs/any-run#feedback'],
    ['/api/investigations/abc/turns', '/investigations/abc'],
  ]) {
    const res = await request.get(door!, { maxRedirects: 0 });
    expect(res.status(), door).toBe(303);
    expect(res.headers().location, door).toBe(page);
  }
});
