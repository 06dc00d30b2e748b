import path from 'node:path';
import { defineConfig } from '@playwright/test';
import { PORTS, UPLOAD_CAP_BYTES } from './e2e/ports';

/*
 * Browser tests. Servers, all on 127.0.0.1:
 * - two stub OpenAI-compatible providers (failover without the internet);
 * - the agent under test: the REAL one (`npx sandscope serve`) by default, or
 *   the fake (E2E_AGENT=fake) while the real service is unavailable;
 * - a fake agent with failure hooks (429/402/503 on cue) for the error specs;
 * - three instances of the website's server (server.mts) over the one build: against the agent under
 *   test, against the failure-hook fake, and against a port where nothing listens.
 * Run through e2e/run.sh, which builds first and sets a random token.
 */

const mode = process.env.E2E_AGENT === 'fake' ? 'fake' : 'real';
const token = process.env.E2E_AGENT_TOKEN ?? 'e2e-token-set-by-run-sh';
const web = typeof __dirname === 'string' ? __dirname : process.cwd();
const root = path.resolve(web, '../..');
const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const baseEnv = { NEXT_TELEMETRY_DISABLED: '1', PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' };
const stubs = {
  GROQ_BASE_URL: `http://127.0.0.1:${PORTS.stubA}/v1`,
  GROQ_API_KEY: 'stub-key-a',
  GEMINI_BASE_URL: `http://127.0.0.1:${PORTS.stubB}/v1`,
  GEMINI_API_KEY: 'stub-key-b',
};
const dataDir = process.env.E2E_DATA_DIR ?? path.join(web, 'test-results/agent-data');

const agentUnderTest =
  mode === 'real'
    ? {
        command: `npx sandscope serve --port ${PORTS.agent}`,
        cwd: root,
        url: `http://127.0.0.1:${PORTS.agent}/healthz`,
        // a fresh embedded database per run (run.sh empties it); limits raised so a test run is never rate limited;
        // the upload cap small (UPLOAD_CAP_BYTES) so a spec can send a file just over it instead of 200 MB
        env: {
          ...baseEnv,
          ...stubs,
          AGENT_TOKEN: token,
          SANDSCOPE_DATA_DIR: dataDir,
          RATE_LIMIT_MAX: '1000',
          INVESTIGATION_FILE_MAX_BYTES: String(UPLOAD_CAP_BYTES),
          ...JSON.parse(process.env.E2E_AGENT_ENV ?? '{}'),
        },
      }
    : {
        command: `npx tsx apps/web/e2e/fake-agent.mts --port ${PORTS.agent}`,
        cwd: root,
        url: `http://127.0.0.1:${PORTS.agent}/healthz`,
        env: { ...baseEnv, AGENT_TOKEN: token, FAKE_PROVIDERS: 'groq,gemini' },
      };

// The website's production server (server.mts: Next.js behind the forwarding-header rule), as `npm start` runs it.
const websiteServer = (port: number, agentPort: number) => ({
  command: `node --import tsx server.mts --port ${port} --host 127.0.0.1`,
  cwd: web,
  url: `http://127.0.0.1:${port}/runs`,
  env: { ...baseEnv, AGENT_URL: `http://127.0.0.1:${agentPort}`, AGENT_TOKEN: token },
});

export default defineConfig({
  testDir: './e2e',
  testMatch: '*.spec.ts',
  outputDir: './test-results/artifacts',
  timeout: 90_000,
  expect: { timeout: 20_000 },
  workers: 1,
  fullyParallel: false,
  reporter: [['list']],
  use: {
    baseURL: `http://127.0.0.1:${PORTS.web}`,
    browserName: 'chromium',
    viewport: { width: 1280, height: 900 },
    // CHROMIUM_PATH: a Chromium elsewhere than Debian's package (a machine without it installed system-wide).
    launchOptions: { executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: chromiumArgs },
    trace: 'off',
  },
  webServer: [
    {
      command: 'npx tsx apps/web/e2e/stub-providers.mts',
      cwd: root,
      url: `http://127.0.0.1:${PORTS.stubB}/v1/models`,
      env: { ...baseEnv, STUB_PORTS: `${PORTS.stubA},${PORTS.stubB}` },
      reuseExistingServer: false,
      timeout: 60_000,
    },
    { ...agentUnderTest, reuseExistingServer: false, timeout: 180_000, stdout: 'pipe', stderr: 'pipe' },
    {
      command: `npx tsx apps/web/e2e/fake-agent.mts --port ${PORTS.faultAgent}`,
      cwd: root,
      url: `http://127.0.0.1:${PORTS.faultAgent}/healthz`,
      env: { ...baseEnv, AGENT_TOKEN: token, FAKE_NO_EVAL: '1' },
      reuseExistingServer: false,
      timeout: 120_000,
    },
    { ...websiteServer(PORTS.web, PORTS.agent), reuseExistingServer: false, timeout: 60_000 },
    { ...websiteServer(PORTS.webFaults, PORTS.faultAgent), reuseExistingServer: false, timeout: 60_000 },
    { ...websiteServer(PORTS.webDown, PORTS.nothing), reuseExistingServer: false, timeout: 60_000 },
  ],
});
