/**
 * Pen test: XSS through the website. A corpus document full of script
 * payloads (security/fixtures/xss-payloads.md, copied into a temporary copy of
 * the corpus) and questions that carry them are served by a real
 * `sandscope serve`, rendered by the real website server (apps/web/server.mts
 * over the production build) and loaded in Chromium.
 *
 * Every payload, if it ran, would set `window.__pwned` to its name or open a
 * dialog. Expected on every page: `window.__pwned` stays unset, no dialog
 * opens, no element carries an `on…` handler attribute, no `javascript:`,
 * `vbscript:` or `data:` URL is rendered as a link or frame — and the payloads
 * are on the page as text, so a pass is not a page that failed to show them.
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { websiteBuildIsCurrent } from 'sandscope/website-build';
import { safeSse, send } from '../lib/http.ts';
import { CannotRun, runCheck } from '../lib/report.ts';
import { closedPort, onExit, REPO_ROOT, startAgent, tempDir } from '../lib/service.ts';

/*
 * The page's globals, as the functions handed to page.evaluate (they run in Chromium) use them: this
 * project compiles for Node, without the DOM library, and only these few names are needed.
 */
interface PageElement {
  readonly tagName: string;
  readonly attributes: ArrayLike<{ readonly name: string }>;
  readonly outerHTML: string;
  readonly textContent: string | null;
  getAttribute(name: string): string | null;
  dispatchEvent(event: unknown): boolean;
}
declare const document: { querySelectorAll(selector: string): ArrayLike<PageElement>; readonly body: { readonly innerText: string } };
declare const window: { readonly __pwned?: unknown };
declare class MouseEvent {
  constructor(type: string, init?: { bubbles?: boolean });
}
declare class FocusEvent {
  constructor(type: string);
}

const CHROMIUM = process.env.SECURITY_CHROMIUM ?? '/usr/bin/chromium';
const WEB = join(REPO_ROOT, 'apps/web');
/** Where the build is (next.config.ts reads the same variable): a build of a changed website can sit beside the real one. */
const DIST_DIR = process.env.NEXT_DIST_DIR || '.next';
const PAYLOADS = readFileSync(join(import.meta.dirname, '../fixtures/xss-payloads.md'), 'utf8');
/** Questions are rendered on the runs list and each run's page: user input, the likeliest XSS vector of all. */
const HOSTILE_QUESTIONS = [
  `<img src=x onerror="window.__pwned='question-img'"> What is the connection pool ceiling for orders-db?`,
  `"><script>window.__pwned='question-script'</script> What does the xss-canary runbook say about its connection pool?`,
  `[click](javascript:window.__pwned='question-link') <svg onload="window.__pwned='question-svg'"></svg> how do I restart xss-canary?`,
];

/**
 * The production build to serve. `npm test` builds it (the browser tests) right before `npm run security`
 * runs in CI, so it is reused when it is newer than every source it is built from; otherwise it is built here.
 */
function ensureBuild(t: { line(s: string): void }): void {
  if (websiteBuildIsCurrent(WEB, DIST_DIR)) {
    t.line(`website: reusing the production build in apps/web/${DIST_DIR} (newer than its sources)`);
    return;
  }
  t.line('website: no build newer than its sources; running `next build` (a few minutes on this machine)');
  const built = spawnSync('npx', ['next', 'build'], {
    cwd: WEB,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (built.status !== 0) throw new Error(`next build failed:\n${built.stdout.slice(-2000)}\n${built.stderr.slice(-2000)}`);
}

async function startWebsite(agentUrl: string, token: string): Promise<string> {
  const port = await closedPort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'server.mts', '--port', String(port), '--host', '127.0.0.1'], {
    cwd: WEB,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, NEXT_TELEMETRY_DISABLED: '1', NEXT_DIST_DIR: DIST_DIR, AGENT_URL: agentUrl, AGENT_TOKEN: token },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  onExit(async () => {
    if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, 'SIGKILL');
    await exited;
  });
  let out = '';
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((done, fail) => {
    const timer = setTimeout(() => fail(new Error(`the website did not listen within 120 s:\n${out}`)), 120_000);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        console.log(`  website pid ${child.pid} listening on ${m[1]}`);
        done(m[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      fail(new Error(`the website exited (${code}) before listening:\n${out}`));
    });
  });
}

await runCheck('XSS through the website (Chromium)', async (t) => {
  if (!existsSync(CHROMIUM)) throw new CannotRun(`no Chromium at ${CHROMIUM}: apt-get install chromium (Debian), or set SECURITY_CHROMIUM`);
  ensureBuild(t);

  const corpus = await tempDir('corpus');
  cpSync(join(REPO_ROOT, 'corpus'), corpus, { recursive: true });
  writeFileSync(join(corpus, 'docs/runbook-xss-canary.md'), PAYLOADS);
  const agent = await startAgent({ env: { CORPUS_DIR: corpus, RATE_LIMIT_MAX: '100000' } });
  const json = { authorization: `Bearer ${agent.token}`, 'content-type': 'application/json' };
  const runIds: string[] = [];
  for (const question of HOSTILE_QUESTIONS) {
    const res = await send(agent.url, { method: 'POST', path: '/v1/runs', headers: json, body: JSON.stringify({ question }) });
    const id = (safeSse(res.text).find((e) => e.event === 'result')?.data as { runId?: string } | undefined)?.runId;
    t.expect(!!id, `a hostile question was not run: ${res.status} ${res.text.slice(0, 200)}`);
    if (id) runIds.push(id);
  }
  const web = await startWebsite(agent.url, agent.token);

  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  onExit(() => browser.close());
  const pages = ['/', '/data', '/runs', ...runIds.map((id) => `/runs/${id}`)];
  for (const path of pages) {
    const page = await browser.newPage();
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    const response = await page.goto(`${web}${path}`, { waitUntil: 'networkidle', timeout: 60_000 });
    // Give anything deferred (an image's onerror, a hydration-time effect) its chance to run.
    await page.waitForTimeout(500);
    // Hover and focus everything once: handlers such as onmouseover and onfocus run only on interaction.
    await page.evaluate(() => {
      for (const el of Array.from(document.querySelectorAll('body *'))) {
        el.dispatchEvent(new MouseEvent('mouseover', { bubbles: true }));
        el.dispatchEvent(new FocusEvent('focus'));
      }
    });
    const seen = await page.evaluate(() => {
      const dangerous = /^\s*(javascript|vbscript|data):/i;
      const links = Array.from(document.querySelectorAll('a[href], area[href]')).map((a) => a.getAttribute('href') ?? '');
      const frames = Array.from(document.querySelectorAll('iframe, frame, object, embed')).map((f) => f.outerHTML.slice(0, 120));
      const handlers = Array.from(document.querySelectorAll('*')).flatMap((el) =>
        Array.from(el.attributes)
          .filter((a) => /^on/i.test(a.name))
          .map((a) => `<${el.tagName.toLowerCase()} ${a.name}>`),
      );
      // A payload that became a script element starts with its own code. Next's inline data scripts
      // (self.__next_f.push) carry the page's text as escaped JSON strings, payloads included, and are data.
      const scripts = Array.from(document.querySelectorAll('script')).filter((s) => /^\s*(window|parent|self)\.__pwned/.test(s.textContent ?? '')).length;
      return {
        pwned: window.__pwned ?? null,
        links: links.length,
        dangerousLinks: links.filter((h) => dangerous.test(h)),
        frames,
        handlers,
        scripts,
        text: document.body.innerText,
      };
    });
    t.count('pages');
    t.count('links checked', seen.links);
    t.line(
      `${path}: HTTP ${response?.status()}, ${seen.links} links, window.__pwned ${seen.pwned === null ? 'unset' : JSON.stringify(seen.pwned)}, dialogs ${dialogs.length}, handler attributes ${seen.handlers.length}, dangerous links ${seen.dangerousLinks.length}, frames ${seen.frames.length}`,
    );
    t.expect(response?.status() === 200, `${path}: HTTP ${response?.status()}`);
    t.expect(seen.pwned === null, `${path}: a payload ran (window.__pwned = ${JSON.stringify(seen.pwned)})`);
    t.expect(dialogs.length === 0, `${path}: a dialog opened: ${dialogs.join(' | ')}`);
    t.expect(seen.handlers.length === 0, `${path}: event-handler attributes rendered: ${seen.handlers.slice(0, 5).join(' ')}`);
    t.expect(seen.dangerousLinks.length === 0, `${path}: clickable script URLs: ${seen.dangerousLinks.slice(0, 5).join(' ')}`);
    t.expect(seen.frames.length === 0, `${path}: frames or objects rendered: ${seen.frames.slice(0, 3).join(' ')}`);
    t.expect(seen.scripts === 0, `${path}: a payload <script> element is in the DOM (${seen.scripts})`);
    // The payloads must be on the page as text, or the page proved nothing.
    if (path === '/data')
      t.expect(seen.text.includes("window.__pwned='img-onerror'"), '/data does not show the payload document as text: the corpus document was not rendered');
    if (path.startsWith('/runs/')) t.expect(seen.text.includes('__pwned'), `${path} does not show the hostile question as text`);
    await page.close();
  }
  t.line(
    `pages ${t.counts.get('pages')}; links checked ${t.counts.get('links checked') ?? 0}; hostile questions ${runIds.length}; payload lines in the corpus document ${PAYLOADS.split('\n').filter((l) => l.includes('__pwned')).length}`,
  );
  await agent.stop();
});
