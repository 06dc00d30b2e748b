import { type Database, getApproval, getRunRecord, listChildRuns, openDatabase, StoreError, startStore, type Store } from '@sandscope/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { API_ERRORS } from '../http/api-error.ts';
import { appDepsOf, createApp } from '../http/app.ts';
import { SESSION_COOKIE } from '../http/session.ts';
import { parseSse } from '../http/testing/sse-events.ts';
import { type AgentService, startAgentService } from './compose.ts';
import type { RunResultView } from './run-views.ts';

/**
 * An approval whose run could not be recorded must not use the approval up.
 * The approver is told 503 store_unavailable — "try again shortly" — so the
 * retry must be able to win: it used to find the approval already claimed by a
 * child run that was never completed (interrupted, no answer), and answer 409
 * not_awaiting_approval for ever, the gated run's action stranded.
 */
const TOKEN = 'approval-retry-token-0123456789abcdef';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const GATED = { question: 'Should we fail over orders-db to the replica?', workload: 'change' } as const;

/** The database, with a switch that makes the next statement matching `pattern` fail as an unreachable server's would. */
function withOneFailure(inner: Database): { db: Database; failNext(pattern: RegExp): void } {
  let armed: RegExp | undefined;
  const check = (sql: string) => {
    if (armed?.test(sql)) {
      armed = undefined;
      throw new StoreError('database_unreachable', 'The database is unreachable (simulated blip).');
    }
  };
  const db: Database = {
    ...inner,
    query: async (sql, params) => {
      check(sql);
      return inner.query(sql, params);
    },
    exec: async (sql) => {
      check(sql);
      return inner.exec(sql);
    },
    transaction: (fn) =>
      inner.transaction((tx) =>
        fn({
          query: async (sql, params) => {
            check(sql);
            return tx.query(sql, params);
          },
          exec: async (sql) => {
            check(sql);
            return tx.exec(sql);
          },
        }),
      ),
    holdConnection: () => inner.holdConnection(),
    close: () => inner.close(),
  };
  return { db, failNext: (pattern) => void (armed = pattern) };
}

describe('an approval whose run could not be recorded', () => {
  let store: Store;
  let agent: AgentService;
  let app: ReturnType<typeof createApp>;
  let blip: ReturnType<typeof withOneFailure>;

  beforeAll(async () => {
    blip = withOneFailure(await openDatabase({ dataDir: 'memory://' }));
    store = await startStore({ database: blip.db });
    const parsed = loadConfig({ AGENT_TOKEN: TOKEN, IP_SALT: 'salt-for-tests-0123456789', RATE_LIMIT_MAX: '1000' }, { requireToken: true });
    if (!parsed.ok) throw new Error(parsed.message);
    agent = await startAgentService({ config: parsed.config, store, log: () => {} });
    app = createApp(appDepsOf(agent, { log: () => {} }));
  }, 120_000);

  afterAll(async () => {
    await agent?.close();
    await store?.close();
  });

  it('is refused 503 store_unavailable and leaves nothing claimed: the retry is 201 with the one approval run', async () => {
    const asked = await app.request('/v1/runs', { method: 'POST', headers: { ...AUTH, 'content-type': 'application/json' }, body: JSON.stringify(GATED) });
    expect(asked.status).toBe(200);
    const gated = parseSse(await asked.text()).at(-1)!.data as RunResultView;
    expect(gated.terminal, 'precondition: this question stops for approval').toBe('await_approval');
    const cookie = new RegExp(`${SESSION_COOKIE}=[^;]+`).exec(asked.headers.get('set-cookie') ?? '')![0];
    const approve = () => app.request(`/v1/runs/${gated.runId}/approve`, { method: 'POST', headers: { ...AUTH, cookie } });

    // The database goes away between the claim and the approval run's outcome (completeRun's statement).
    blip.failNext(/update run set status = 'completed'/);
    const first = await approve();
    expect(first.status).toBe(503);
    expect(await first.json()).toEqual({ error: { code: 'store_unavailable', message: API_ERRORS.store_unavailable.remedy } });
    expect(await getApproval(store.db, gated.runId), 'a refused approval claims nothing').toBeNull();

    const retry = await approve();
    const body = (await retry.json()) as { run?: RunResultView; error?: unknown };
    expect(retry.status, JSON.stringify(body)).toBe(201);
    expect(body.run).toMatchObject({ parentRunId: gated.runId, terminal: 'emit' });
    const children = await listChildRuns(store.db, gated.runId);
    expect(children.map((c) => [c.id, c.status])).toEqual([[body.run!.runId, 'completed']]);
    expect((await getRunRecord(store.db, body.run!.runId))?.status).toBe('completed');
  });
});
