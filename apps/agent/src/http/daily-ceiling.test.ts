import { startStore, type Store } from '@sandscope/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { startAgentService, type AgentService } from '../service/compose.ts';
import { appDepsOf, createApp } from './app.ts';
import type { RunResultView } from '../service/run-views.ts';
import { NoCacheStore, spendTheDay } from './testing/run-burst.ts';
import { parseSse } from './testing/sse-events.ts';

/**
 * Issue 12, defect 1 over HTTP, in-process limiter: runs used to be admitted
 * before their tokens were charged, and charged when they ended —
 * `DAILY_TOKEN_CEILING=5000` with 200 concurrent runs used 84,640 tokens. Now each
 * run reserves RUN_TOKEN_BUDGET at admission and settles to what it used.
 */

const TOKEN = 'test-token-0123456789abcdef0123456789';
const CEILING = 5_000;
/** RUN_TOKEN_BUDGET: what each run reserves — half the ceiling, so two runs may hold it at once. */
const RESERVATION = 2_500;
const CONCURRENT = 200;

let store: Store;
let agent: AgentService;
beforeAll(async () => {
  store = await startStore({ dataDir: 'memory://' });
  const env = {
    AGENT_TOKEN: TOKEN,
    IP_SALT: 'salt-for-tests-0123456789',
    DAILY_TOKEN_CEILING: String(CEILING),
    RUN_TOKEN_BUDGET: String(RESERVATION),
    RATE_LIMIT_MAX: '100000',
  };
  const parsed = loadConfig(env, { requireToken: true });
  if (!parsed.ok) throw new Error(parsed.message);
  agent = await startAgentService({ config: parsed.config, store, log: () => {}, cacheStore: new NoCacheStore() });
}, 120_000);
afterAll(async () => {
  await agent?.close();
  await store?.close();
});

describe('issue 12, defect 1: the daily token ceiling under concurrency (in-process limiter, over HTTP)', () => {
  it(`${CONCURRENT} concurrent runs, then waves until the day is spent: never past DAILY_TOKEN_CEILING by more than one run's reservation`, async () => {
    const app = createApp(appDepsOf(agent));
    const { first, total } = await spendTheDay([app], { token: TOKEN, address: '203.0.113.50', concurrent: CONCURRENT, wave: 20, maxWaves: 30 });
    console.log(
      `defect 1 (in-process, HTTP): burst of ${CONCURRENT}: ${first.admitted} admitted, ${first.used} tokens, refused ${JSON.stringify(first.refused)}; ` +
        `until the day was spent: ${total.admitted} runs, ${total.used} tokens against a ceiling of ${CEILING} (+ one reservation ${RESERVATION}; the largest run used ${total.maxRun}), refused ${JSON.stringify(total.refused)}`,
    );
    expect(first.admitted).toBeGreaterThan(0);
    expect(first.used).toBeLessThanOrEqual(CEILING + RESERVATION);
    expect(total.refused.daily_tokens_exhausted).toBeGreaterThan(0);
    expect(total.used).toBeGreaterThanOrEqual(CEILING);
    expect(total.used).toBeLessThanOrEqual(CEILING + RESERVATION);
    // Why the bound holds: no run used more than was reserved for it.
    expect(total.maxRun).toBeLessThanOrEqual(RESERVATION);
  });

  it('holds a run to RUN_TOKEN_BUDGET: a model call that could use more than is left of it is not made, and the run says why', async () => {
    const parsed = loadConfig({ AGENT_TOKEN: TOKEN, IP_SALT: 'salt-for-tests-0123456789', RUN_TOKEN_BUDGET: '300' }, { requireToken: true });
    if (!parsed.ok) throw new Error(parsed.message);
    const small = await startAgentService({ config: parsed.config, store, log: () => {}, cacheStore: new NoCacheStore() });
    try {
      const app = createApp(appDepsOf(small));
      const res = await app.request('/v1/runs', {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.52' },
        body: JSON.stringify({ question: 'What is the connection pool ceiling for orders-db?' }),
      });
      const result = parseSse(await res.text()).find((e) => e.event === 'result')?.data as RunResultView;
      // The draft prompt alone is over 300 tokens as sent: no provider was asked, nothing was used.
      expect(result.providers).toEqual([]);
      expect(result.attempts[0]?.error).toMatchObject({
        code: 'budget_exceeded',
        message: expect.stringMatching(/Run token allowance exhausted: .* of the run's 300 tokens \(RUN_TOKEN_BUDGET\)/),
      });
      expect(result.outcome).toBe('escalated');
    } finally {
      await small.close();
    }
  });
});
