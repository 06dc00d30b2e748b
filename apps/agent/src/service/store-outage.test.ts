import { getRunRecord, openDatabase, startStore, type Store } from '@sandscope/store';
import { simulateOutage, type SimulatedOutage } from '@sandscope/store/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../config.ts';
import { API_ERRORS } from '../http/api-error.ts';
import { appDepsOf, createApp } from '../http/app.ts';
import { parseSse } from '../http/testing/sse-events.ts';
import { type AgentService, startAgentService } from './compose.ts';
import { RunGate } from './testing/run-gate.ts';

/**
 * Issue 12, defect 4 on embedded PGlite, whose outage is simulated
 * (simulateOutage): a run asked while the database is down must be refused
 * before a stream opens — 503 store_unavailable, never 200 and then
 * `internal` — and a run caught in flight must not stay `running` forever: it
 * reads back `interrupted` once the database is back.
 */
const TOKEN = 'store-outage-token-0123456789abcdef';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const ASK = {
  method: 'POST',
  headers: { ...AUTH, 'content-type': 'application/json' },
  body: JSON.stringify({ question: 'What is the connection pool ceiling for orders-db?' }),
};
const STORE_UNAVAILABLE = { error: { code: 'store_unavailable', message: API_ERRORS.store_unavailable.remedy } };

describe('a database outage on embedded PGlite (issue 12, defect 4)', () => {
  let outage: SimulatedOutage;
  let store: Store;
  let agent: AgentService;
  let app: ReturnType<typeof createApp>;
  const gate = new RunGate();
  const runCount = async () => (await store.db.query<{ n: number }>('select count(*)::int as n from run'))[0]!.n;

  beforeAll(async () => {
    outage = simulateOutage(await openDatabase({ dataDir: 'memory://' }));
    store = await startStore({ database: outage.db });
    const parsed = loadConfig({ AGENT_TOKEN: TOKEN, IP_SALT: 'salt-for-tests-0123456789', RATE_LIMIT_MAX: '1000' }, { requireToken: true });
    if (!parsed.ok) throw new Error(parsed.message);
    agent = await startAgentService({ config: parsed.config, store, log: () => {}, executor: (o) => gate.wrap(o) });
    app = createApp(appDepsOf(agent, { log: () => {} }));
  }, 120_000);

  afterEach(() => outage.up());
  afterAll(async () => {
    await agent?.close();
    await store?.close();
  });

  it('refuses runs and approvals with 503 store_unavailable while the database is down, starts none, and admits again once it is back', async () => {
    const before = await runCount();
    outage.down();
    const asked = await app.request('/v1/runs', ASK);
    expect(asked.status, await asked.clone().text()).toBe(503);
    expect(await asked.json()).toEqual(STORE_UNAVAILABLE);
    const approve = await app.request('/v1/runs/00000000-0000-4000-8000-000000000000/approve', { method: 'POST', headers: AUTH });
    expect(approve.status).toBe(503);
    expect(await approve.json()).toEqual(STORE_UNAVAILABLE);
    outage.up();
    expect(await runCount()).toBe(before);
    expect(store.lease.held, 'the lease heard its connection go').toBe(false);

    await vi.waitFor(
      async () => {
        const again = await app.request('/v1/runs', ASK);
        expect(again.status).toBe(200);
        expect(parseSse(await again.text()).at(-1)?.event).toBe('result');
      },
      { timeout: 10_000, interval: 100 },
    );
    expect(store.lease.held).toBe(true);

    // Before the lease has noticed anything, the run row is the check: it cannot be written, so nothing is admitted.
    const admitted = await runCount();
    outage.down({ keepHeld: true });
    const unnoticed = await app.request('/v1/runs', ASK);
    expect(unnoticed.status).toBe(503);
    expect(await unnoticed.json()).toEqual(STORE_UNAVAILABLE);
    outage.up();
    expect(await runCount()).toBe(admitted);

    await vi.waitFor(
      async () => {
        const again = await app.request('/v1/runs', ASK);
        expect(again.status).toBe(200);
        expect(parseSse(await again.text()).at(-1)?.event).toBe('result');
      },
      { timeout: 10_000, interval: 100 },
    );
  });

  it('a run in flight when the database goes down ends its stream with store_unavailable, and reads back interrupted once it is back', async () => {
    const held = gate.hold();
    const asked = await app.request('/v1/runs', ASK);
    expect(asked.status).toBe(200);
    const runId = await held.reached;
    outage.down();
    held.release();
    const events = parseSse(await asked.text());
    expect(events.at(-1)).toEqual({ event: 'error', data: STORE_UNAVAILABLE });
    outage.up();

    await vi.waitFor(
      async () => {
        const run = await getRunRecord(store.db, runId);
        expect(run?.status).toBe('interrupted');
        expect(run?.error).toMatch(/database/);
      },
      { timeout: 10_000, interval: 100 },
    );
  });
});
