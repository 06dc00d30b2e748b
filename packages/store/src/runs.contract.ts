import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { saveClaims } from './citation-repository.ts';
import { FIXTURE_PASSAGES } from './contract-fixtures.ts';
import { recordProviderEvent } from './provider-event-repository.ts';
import { getRun } from './run-detail.ts';
import { appendSpan, createRun, finishRun, listRuns } from './run-repository.ts';
import { recordSpend } from './spend-ledger-repository.ts';
import type { Database } from './database.ts';
import { expectStoreError, type StoreContractContext } from './store-contract-context.ts';

/** The store contract's cases for runs, their spans, provider events and spend (store.contract.ts runs them on every backend). */
export function describeRunContract(context: () => StoreContractContext): void {
  describe('runs', () => {
    let db: Database;
    let newRun: StoreContractContext['newRun'];
    beforeAll(() => {
      ({ db, newRun } = context());
    });

    it('round-trip a run with its spans and outcome', async () => {
      const run = await createRun(db, newRun({ question: 'round trip?' }));
      expect(run.status).toBe('running');
      await appendSpan(db, run.id, { node: 'classify', kind: 'start' });
      await appendSpan(db, run.id, { node: 'classify', kind: 'end', durationMs: 12.5, attributes: { workload: 'triage', n: [1, 2] } });
      await appendSpan(db, run.id, { node: 'retrieve', kind: 'event', attributes: { hits: 6 } });
      const done = await finishRun(db, run.id, {
        status: 'completed',
        terminal: 'emit',
        verdict: 'answered',
        band: 'sufficient',
        score: 0.81,
        answer: 'Pool exhaustion.',
        risk: { level: 'low' },
        result: { claims: 1 },
        costUsd: 0.0123,
        tokensIn: 900,
        tokensOut: 120,
      });
      expect(done).toMatchObject({ status: 'completed', terminal: 'emit', costUsd: 0.0123, tokensIn: 900, risk: { level: 'low' } });

      const detail = await getRun(db, run.id);
      expect(detail?.run).toEqual(done);
      expect(detail?.spans.map((s) => [s.seq, s.node, s.kind, s.durationMs, s.attributes])).toEqual([
        [1, 'classify', 'start', null, {}],
        [2, 'classify', 'end', 12.5, { workload: 'triage', n: [1, 2] }],
        [3, 'retrieve', 'event', null, { hits: 6 }],
      ]);
      await expectStoreError(finishRun(db, run.id, { status: 'failed', error: 'late' }), 'run_not_running');
      await expectStoreError(appendSpan(db, run.id, { node: 'late', kind: 'event' }), 'run_not_running');
      await expectStoreError(appendSpan(db, randomUUID(), { node: 'x', kind: 'event' }), 'run_not_found');
      expect(await getRun(db, randomUUID())).toBeNull();
      expect(await getRun(db, 'not-a-uuid')).toBeNull();
    });

    it('listRuns pages newest first', async () => {
      const mine: string[] = [];
      for (let i = 0; i < 5; i++) mine.push((await createRun(db, newRun({ question: `paging ${i}` }))).id);
      // Runs created in one instant (PGlite's clock ticks in milliseconds) still list in insertion order.
      await db.query(`update run set created_at = '2030-01-01T00:00:00Z' where id = any($1::uuid[])`, [mine]);
      const newestFirst = [...mine].reverse();
      const page1 = await listRuns(db, { page: 1, pageSize: 2 });
      const page2 = await listRuns(db, { page: 2, pageSize: 2 });
      const page3 = await listRuns(db, { page: 3, pageSize: 2 });
      expect(page1.runs.map((r) => r.id)).toEqual(newestFirst.slice(0, 2));
      expect(page2.runs.map((r) => r.id)).toEqual(newestFirst.slice(2, 4));
      expect(page3.runs[0]?.id).toBe(newestFirst[4]);
      const [count] = await db.query<{ n: number }>('select count(*)::int as n from run');
      expect(page1.total).toBe(count?.n);
      expect(page1).toMatchObject({ page: 1, pageSize: 2 });
      const beyond = await listRuns(db, { page: Math.ceil(page1.total / 2) + 1, pageSize: 2 });
      expect(beyond.runs).toEqual([]);
      await expectStoreError(listRuns(db, { page: 0 }), 'invalid_argument');
    });

    it('getRun returns claims grouped with citations, router events, spend, and parent/child links', async () => {
      const gated = await createRun(db, newRun({ workload: 'change', question: 'restart orders-db?' }));
      await saveClaims(
        db,
        gated.id,
        [
          { text: 'The ceiling is 100.', citations: ['runbook-pool#ceiling', 'runbook-pool#symptoms'] },
          { text: 'SEV1 is acknowledged in 5 minutes.', citations: ['policy-paging#acknowledgement'] },
        ],
        FIXTURE_PASSAGES,
      );
      await recordProviderEvent(db, gated.id, { provider: 'groq', kind: 'call', status: 'rate_limited', latencyMs: 40 });
      await recordProviderEvent(db, gated.id, { provider: 'gemini', kind: 'call', status: 'ok', tokens: 300, costUsd: 0.002 });
      await recordSpend(db, { runId: gated.id, kind: 'reserve', provider: 'mistral', usd: 0.02 });
      await recordSpend(db, { runId: gated.id, kind: 'settle', provider: 'gemini', usd: 0.002 });
      await recordSpend(db, { runId: gated.id, kind: 'release', provider: 'mistral', usd: 0.02 });
      await finishRun(db, gated.id, { status: 'completed', terminal: 'await_approval', verdict: 'answered', band: 'sufficient' });
      const approvalRun = await createRun(db, newRun({ workload: 'change', question: 'approved', parentRunId: gated.id }));

      const detail = await getRun(db, gated.id);
      expect(detail?.claims).toEqual([
        {
          index: 0,
          text: 'The ceiling is 100.',
          citations: [
            { chunkId: 'runbook-pool#ceiling', doc: 'runbook-pool.md', heading: 'Ceiling', text: 'orders-db allows 100 connections.', textFrom: 'record' },
            { chunkId: 'runbook-pool#symptoms', doc: 'runbook-pool.md', heading: 'Symptoms', text: 'Waits climb.', textFrom: 'record' },
          ],
        },
        {
          index: 1,
          text: 'SEV1 is acknowledged in 5 minutes.',
          citations: [
            {
              chunkId: 'policy-paging#acknowledgement',
              doc: 'policy-paging.md',
              heading: 'Acknowledgement',
              text: 'SEV1 pages are acknowledged within 5 minutes.',
              textFrom: 'record',
            },
          ],
        },
      ]);
      expect(detail?.providerEvents.map((e) => [e.seq, e.provider, e.status, e.costUsd])).toEqual([
        [1, 'groq', 'rate_limited', null],
        [2, 'gemini', 'ok', 0.002],
      ]);
      expect(detail?.spend).toMatchObject({ reservedUsd: 0.02, settledUsd: 0.002, releasedUsd: 0.02 });
      expect(detail?.parent).toBeNull();
      expect(detail?.children.map((c) => c.id)).toEqual([approvalRun.id]);

      const child = await getRun(db, approvalRun.id);
      expect(child?.parent?.id).toBe(gated.id);
      expect(child?.parent?.terminal).toBe('await_approval');
      await expectStoreError(createRun(db, newRun({ parentRunId: randomUUID() })), 'run_not_found');
    });
  });
}
