import { expect, type Page, test } from '@playwright/test';
import { shot } from './helpers';

/*
 * What the server's own HTML says, read with JavaScript off (the README: reading pages work without it):
 * - S-196: a run, investigation, workspace file or source file that does not exist answered 404 with a bare
 *   `<html id="__next_error__">` document — no text at all until JavaScript drew the not-found page;
 * - S-197: an upload named like a path (`../../etc/evil.log`) came back as "Not found … made against another
 *   database" (the website's URL to the agent lost the `..` segments), and an upload with no file chosen said
 *   "only text files are accepted";
 * - S-197: the console's plain form showed only "Type a question, pick a workload" for a question the agent refused
 *   with its reason ("question contains a NUL character (U+0000) at character 3");
 * - the same audit: that reason ended with the agent's remedy for an API client ("… the request shapes are in
 *   docs/API.md"), and a refused approval or mark — the run page's two plain forms — said the code's generic line alone.
 */
test.use({ javaScriptEnabled: false });

/** A new investigation through the plain form; its id. */
async function newInvestigation(page: Page, title: string): Promise<string> {
  await page.goto('/investigations');
  await page.getByLabel('Title').fill(title);
  await page.getByRole('button', { name: 'Create' }).click();
  await page.waitForURL(/\/investigations\/[^/?#]+$/);
  return decodeURIComponent(page.url().split('/').at(-1)!);
}

test('a run, investigation, file or source file that does not exist is a 404 whose HTML says so', async ({ page, request }) => {
  test.skip(process.env.E2E_AGENT === 'fake', 'the fake agent keeps no investigations');
  const id = await newInvestigation(page, 'server-rendered 404s');
  const missing = [
    { path: '/runs/nope', heading: 'No such run', text: 'A run id is the one in its link' },
    { path: '/runs/00000000-0000-0000-0000-000000000000', heading: 'No such run', text: 'A run id is the one in its link' },
    { path: '/investigations/nope', heading: 'Not found', text: 'There is no page here' },
    { path: `/investigations/${encodeURIComponent(id)}/files/nope.log`, heading: 'Not found', text: 'There is no page here' },
    // A path the agent refuses for leaving the workspace names no file either.
    { path: `/investigations/${encodeURIComponent(id)}/files/..%2F..%2Fnope.log`, heading: 'Not found', text: 'There is no page here' },
    { path: '/architecture/source/nope', heading: 'no such source file here', text: 'shows only the files' },
  ];
  for (const m of missing) {
    // The HTML as the server sent it: the words are there, not only in the data a script would render.
    const res = await request.get(m.path);
    expect(res.status(), m.path).toBe(404);
    expect(await res.text(), m.path).toContain(m.text);
    // And as a browser without JavaScript shows it.
    const shown = await page.goto(m.path);
    expect(shown?.status(), m.path).toBe(404);
    await expect(page.getByRole('heading', { level: 1 }), m.path).toContainText(m.heading);
    await expect(page.locator('body'), m.path).toContainText(m.text);
  }
  await page.goto('/runs/nope');
  await expect(page.locator('body')).toContainText('nope');
  await expect(page.getByRole('link', { name: /all runs/i })).toHaveAttribute('href', '/runs');
  await shot(page, 'run-not-found-no-js');
});

test('an upload named like a path says why the agent refused it; an upload without a file says to choose one', async ({ page }) => {
  test.skip(process.env.E2E_AGENT === 'fake', 'the fake agent keeps no investigations');
  const id = await newInvestigation(page, 'path-like upload names');
  const res = await page.request.post(`/api/investigations/${encodeURIComponent(id)}/files`, {
    multipart: { file: { name: '../../etc/evil.log', mimeType: 'text/plain', buffer: Buffer.from('10:00:01 INFO start\n') } },
    maxRedirects: 0,
  });
  expect(res.status()).toBe(303);
  const location = res.headers().location ?? '';
  expect(location).toContain('error=invalid_request');
  await page.goto(location);
  const refused = page.locator('#files [role="alert"]');
  await expect(refused).toContainText('leaves the workspace');
  await expect(refused).not.toContainText('Not found');
  await expect(page.locator('tr[data-file]')).toHaveCount(0);

  // The plain form with no file chosen: the browser sends an empty, unnamed part.
  await page.getByRole('button', { name: 'Upload', exact: true }).click();
  await page.waitForURL(/\/investigations\/[^/?#]+\?/);
  await expect(page.locator('#files [role="alert"]')).toContainText('choose a file');
  await expect(page.locator('#files [role="alert"]')).not.toContainText('only text files');
  await shot(page, 'upload-refused-no-js');
});

test('the console’s plain form shows the reason a question was refused, the agent’s or its own', async ({ page }) => {
  const cases: { fields: Record<string, string>; says: string }[] = [
    { fields: { question: 'hi\u0000there', workload: 'triage' }, says: 'NUL character (U+0000) at character 3' },
    { fields: { question: 'hi there', workload: 'triage', failProviders: 'bogus' }, says: 'failProviders' },
    { fields: { question: 'hi there', workload: 'bogus' }, says: 'workload: must be one of triage' },
  ];
  for (const c of cases) {
    const res = await page.request.post('/api/runs', { form: c.fields, maxRedirects: 0 });
    expect(res.status()).toBe(303);
    const location = res.headers().location ?? '';
    expect(location).toMatch(/^\/\?error=invalid_request/);
    await page.goto(location);
    const problem = page.locator('.problem[data-problem="invalid_request"]');
    await expect(problem, c.says).toContainText(c.says);
    // The website's remedy, not the API's: a person on a page is not sent to docs/API.md.
    await expect(problem, c.says).not.toContainText('docs/API.md');
    // The generic line stays, under the reason.
    await expect(problem, c.says).toContainText('Type a question, pick a workload, and ask again.');
  }
  // A link made by hand carries the code only: the page says nothing it was not told by this browser's own post.
  await page.context().clearCookies();
  await page.goto('/?error=invalid_request&q=hi');
  await expect(page.locator('.problem[data-problem="invalid_request"]')).not.toContainText('must be one of');
  await shot(page, 'console-refused-no-js');
});

/** A run asked through the console's plain form (run server-side); its id. */
async function askPlain(page: Page, question: string, workload: string): Promise<string> {
  const res = await page.request.post('/api/runs', { form: { question, workload }, maxRedirects: 0, timeout: 120_000 });
  expect(res.status()).toBe(303);
  const location = res.headers().location ?? '';
  expect(location).toMatch(/^\/runs\/[^/?#]+$/);
  return decodeURIComponent(location.split('/').at(-1)!);
}

test('an approval refused to another browser says the agent’s reason, with the website’s remedy', async ({ page, browser }) => {
  const gatedId = await askPlain(page, 'Should we fail over orders-db to the replica?', 'change');
  const other = await browser.newContext({ javaScriptEnabled: false });
  const stranger = await other.newPage();
  const res = await stranger.request.post(`/api/runs/${encodeURIComponent(gatedId)}/approve`, { maxRedirects: 0 });
  expect(res.status()).toBe(303);
  const location = res.headers().location ?? '';
  expect(location).toBe(`/runs/${encodeURIComponent(gatedId)}?error=forbidden_session&during=approval`);
  await stranger.goto(location);
  const problem = stranger.locator('.problem[data-problem="forbidden_session"]');
  await expect(problem).toContainText('The approval was refused.');
  await expect(problem).toContainText(process.env.E2E_AGENT === 'fake' ? 'only the session that requested this run' : 'requested by another session');
  if (process.env.E2E_AGENT !== 'fake') await expect(problem).toContainText('Approve from the browser that asked the question, or ask it again here');
  await expect(problem).not.toContainText('sandscope_session');
  // A link made by hand carries the code only.
  await other.clearCookies();
  await stranger.goto(location);
  await expect(stranger.locator('.problem[data-problem="forbidden_session"]')).not.toContainText('The agent says');
  await shot(stranger, 'approval-refused-no-js');
  await other.close();
});

test('a mark the agent refuses says its reason beside the form, with the website’s remedy', async ({ page }) => {
  test.skip(process.env.E2E_AGENT === 'fake', 'the fake agent keeps no marks');
  const runId = await askPlain(page, 'What is the connection pool ceiling for orders-db?', 'triage');
  // A note with a NUL in it passes the website's own checks (a label, a length) and is refused by the agent.
  const res = await page.request.post(`/api/runs/${encodeURIComponent(runId)}/feedback`, { form: { label: 'right', note: 'a\u0000b' }, maxRedirects: 0 });
  expect(res.status()).toBe(303);
  const location = res.headers().location ?? '';
  // S-224: the choice and the note come back with the refusal, so nothing typed is lost.
  expect(location).toBe(`/runs/${encodeURIComponent(runId)}?error=invalid_request&during=feedback&label=right&note=a%00b#feedback`);
  await page.goto(location);
  const refused = page.locator('section.feedback [data-problem="invalid_request"]');
  await expect(refused).toContainText('The mark was not saved');
  await expect(refused).toContainText('NUL character (U+0000)');
  await expect(refused).toContainText('send the form again');
  await expect(refused).not.toContainText('docs/API.md');
  await expect(page.locator('section.feedback .feedback-current')).toContainText('Not marked yet.');
  await shot(page, 'feedback-refused-no-js');
});
