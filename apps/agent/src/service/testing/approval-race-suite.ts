import { getApproval, listChildRuns, type Store } from '@sandscope/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.ts';
import { API_ERRORS } from '../../http/api-error.ts';
import { appDepsOf, createApp } from '../../http/app.ts';
import { SESSION_COOKIE } from '../../http/session.ts';
import { parseSse } from '../../http/testing/sse-events.ts';
import { type AgentService, startAgentService } from '../compose.ts';
import type { RunResultView } from '../run-views.ts';

const TOKEN = 'approval-race-token-0123456789abcdef';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const GATED = { question: 'Should we fail over orders-db to the replica?', workload: 'change' } as const;
const APPROVALS = 20;

/** A started store on one backend, and how to give it back. */
export interface RaceTarget {
  readonly store: Store;
  dispose(): Promise<void>;
}

/**
 * Issue 12, defect 7: twenty approvals of one gated run at once. On a Postgres
 * server each used to pass the "already approved?" read, create its child run,
 * and only then lose on the approval's unique constraint — leaving a failed
 * child per loser. The claim must be won before any child run exists: exactly
 * one child, one 201, and nineteen 409 not_awaiting_approval. Run unchanged on
 * PGlite and on a server (STYLE 11).
 */
export function describeApprovalRace(name: string, open: () => Promise<RaceTarget>, options: { skip?: boolean } = {}): void {
  describe.skipIf(options.skip === true)(`concurrent approvals of one gated run: ${name}`, () => {
    let target: RaceTarget;
    let agent: AgentService;
    let app: ReturnType<typeof createApp>;

    beforeAll(async () => {
      target = await open();
      // The limiter is not under test: let twenty approvals from one client through.
      const parsed = loadConfig({ AGENT_TOKEN: TOKEN, IP_SALT: 'salt-for-tests-0123456789', RATE_LIMIT_MAX: '1000' }, { requireToken: true });
      if (!parsed.ok) throw new Error(parsed.message);
      agent = await startAgentService({ config: parsed.config, store: target.store, log: () => {} });
      app = createApp(appDepsOf(agent, { log: () => {} }));
    }, 120_000);

    afterAll(async () => {
      await agent?.close();
      await target?.dispose();
    });

    it(`${APPROVALS} approvals at once: exactly one child run, one 201 and ${APPROVALS - 1} × 409 not_awaiting_approval`, async () => {
      const asked = await app.request('/v1/runs', { method: 'POST', headers: { ...AUTH, 'content-type': 'application/json' }, body: JSON.stringify(GATED) });
      expect(asked.status).toBe(200);
      const gated = parseSse(await asked.text()).at(-1)!.data as RunResultView;
      expect(gated.terminal, 'precondition: this question stops for approval').toBe('await_approval');
      const cookie = new RegExp(`${SESSION_COOKIE}=[^;]+`).exec(asked.headers.get('set-cookie') ?? '')![0];

      const responses = await Promise.all(
        Array.from({ length: APPROVALS }, () => app.request(`/v1/runs/${gated.runId}/approve`, { method: 'POST', headers: { ...AUTH, cookie } })),
      );
      const bodies = await Promise.all(responses.map((r) => r.json() as Promise<{ run?: RunResultView; error?: { code: string; message: string } }>));
      const statuses = responses.map((r) => r.status).sort();
      expect(statuses).toEqual([201, ...Array<number>(APPROVALS - 1).fill(409)]);
      for (const body of bodies.filter((b) => b.error)) {
        expect(body.error!.code).toBe('not_awaiting_approval');
        expect(body.error!.message).toContain(API_ERRORS.not_awaiting_approval.remedy);
      }
      const winner = bodies.find((b) => b.run)!.run!;

      // No loser left a run behind — not even a failed one.
      const children = await listChildRuns(target.store.db, gated.runId);
      expect(children.map((c) => [c.id, c.status])).toEqual([[winner.runId, 'completed']]);
      expect((await getApproval(target.store.db, gated.runId))?.approvalRunId).toBe(winner.runId);
    });
  });
}
