import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { FIXTURE_PASSAGES } from './contract-fixtures.ts';
import type { Database } from './database.ts';
import { listProviderEvents } from './provider-event-repository.ts';
import { getRun } from './run-detail.ts';
import { appendRunEvents, completeRun } from './run-record-batch.ts';
import { appendSpan, finishRun, createRun, listSpans, type NewRun } from './run-repository.ts';
import { spendForRun } from './spend-ledger-repository.ts';
import { expectStoreError } from './store-contract-context.ts';

/** What the batch cases need from the suite that runs them: its migrated database (with the fixture corpus) and its run template. */
export interface RecordBatchContractContext {
  readonly db: Database;
  readonly newRun: (over?: Partial<NewRun>) => NewRun;
}

async function rowCounts(db: Database, runId: string) {
  const [row] = await db.query<{ spans: number; providers: number; ledger: number; citations: number }>(
    `select (select count(*) from span where run_id = $1)::int as spans,
            (select count(*) from provider_event where run_id = $1)::int as providers,
            (select count(*) from spend_ledger where run_id = $1)::int as ledger,
            (select count(*) from citation where run_id = $1)::int as citations`,
    [runId],
  );
  return row!;
}

/**
 * ADR-0004's batched record, inside the store contract (contract.ts) so PGlite
 * and a Postgres server must agree: a flush of spans, provider events and
 * spend lines is one statement that continues the run's seqs and writes
 * nothing into a run that has stopped; completing a run writes its outcome and
 * its citations together or not at all.
 */
export function describeRecordBatchContract(context: () => RecordBatchContractContext): void {
  describe('the record in batches (ADR-0004)', () => {
    it('appends spans, provider events and spend lines in one flush, continuing the seqs, in order', async () => {
      const { db, newRun } = context();
      const run = await createRun(db, newRun());
      await appendSpan(db, run.id, { node: 'classify', kind: 'start' });
      const at = new Date('2030-01-02T03:04:05.678Z');
      const appended = await appendRunEvents(db, run.id, {
        spans: [
          { node: 'classify', kind: 'end', durationMs: 1.25, attributes: { entities: ['orders-db'] }, at },
          { node: 'retrieve', kind: 'start', at },
          { node: 'retrieve', kind: 'end', durationMs: 3, attributes: {}, at },
        ],
        providerEvents: [
          { provider: 'groq', kind: 'failed', status: 'rate_limited', latencyMs: 12 },
          { provider: 'offline', kind: 'served', status: 'ok', tokens: 40, costUsd: 0 },
        ],
        spend: [
          { kind: 'reserve', usd: 0.02, provider: 'groq' },
          { kind: 'settle', usd: 0.001, provider: 'offline' },
          { kind: 'release', usd: 0.02, provider: 'offline' },
        ],
      });
      expect(appended.spans.map((s) => [s.seq, s.node, s.kind, s.durationMs, s.attributes, s.at])).toEqual([
        [2, 'classify', 'end', 1.25, { entities: ['orders-db'] }, at.toISOString()],
        [3, 'retrieve', 'start', null, {}, at.toISOString()],
        [4, 'retrieve', 'end', 3, {}, at.toISOString()],
      ]);
      expect(appended.providerEventSeqs).toEqual([1, 2]);
      // What the flush returned is what a reader finds.
      expect((await listSpans(db, run.id)).slice(1)).toEqual(appended.spans);
      expect((await listProviderEvents(db, run.id)).map((e) => [e.seq, e.provider, e.status, e.tokens])).toEqual([
        [1, 'groq', 'rate_limited', null],
        [2, 'offline', 'ok', 40],
      ]);
      expect((await spendForRun(db, run.id)).entries.map((e) => e.kind)).toEqual(['reserve', 'settle', 'release']);
      const next = await appendRunEvents(db, run.id, {
        spans: [{ node: 'emit', kind: 'start' }],
        providerEvents: [{ provider: 'offline', kind: 'served', status: 'ok' }],
      });
      expect(next.spans.map((s) => s.seq)).toEqual([5]);
      expect(next.providerEventSeqs).toEqual([3]);
      expect(await appendRunEvents(db, run.id, {})).toEqual({ spans: [], providerEventSeqs: [] });
    });

    it('writes nothing into a run that has stopped — spend and provider lines included — and names an unknown run', async () => {
      const { db, newRun } = context();
      const run = await createRun(db, newRun());
      await finishRun(db, run.id, { status: 'failed', error: 'stopped' });
      await expectStoreError(
        appendRunEvents(db, run.id, {
          spans: [{ node: 'late', kind: 'start' }],
          providerEvents: [{ provider: 'groq', kind: 'served', status: 'ok' }],
          spend: [{ kind: 'reserve', usd: 0.01 }],
        }),
        'run_not_running',
      );
      expect(await rowCounts(db, run.id)).toEqual({ spans: 0, providers: 0, ledger: 0, citations: 0 });
      await expectStoreError(appendRunEvents(db, randomUUID(), { spans: [{ node: 'x', kind: 'start' }] }), 'run_not_found');
      await expectStoreError(appendRunEvents(db, run.id, { spend: [{ kind: 'settle', usd: -1 }] }), 'invalid_argument');
    });

    it('completes a run with its claims in one statement; a bad chunk id leaves the run running with no citations', async () => {
      const { db, newRun } = context();
      const bad = await createRun(db, newRun());
      await expectStoreError(
        completeRun(
          db,
          bad.id,
          { terminal: 'emit', verdict: 'answered' },
          [
            { text: 'The ceiling is 100.', citations: ['runbook-pool#ceiling'] },
            { text: 'Retention is forever.', citations: ['service-events-bus#retention', 'service-events-bus#forever'] },
          ],
          [...FIXTURE_PASSAGES, { chunkId: 'service-events-bus#forever', doc: 'service-events-bus.md', heading: 'Forever', text: 'Made up.' }],
        ),
        'citation_chunk_missing',
        /claim 1 cites chunk "service-events-bus#forever"/,
      );
      expect((await getRun(db, bad.id))?.run.status).toBe('running');
      expect(await rowCounts(db, bad.id)).toMatchObject({ citations: 0 });
      await expectStoreError(completeRun(db, bad.id, {}, [{ text: 'uncited', citations: [] }], FIXTURE_PASSAGES), 'claim_without_citation');

      const run = await createRun(db, newRun());
      await completeRun(
        db,
        run.id,
        { terminal: 'emit', verdict: 'answered', band: 'sufficient', answer: 'Pool.', result: { claims: 2 }, costUsd: 0.0042, tokensIn: 10, tokensOut: 2 },
        [
          { text: 'The ceiling is 100.', citations: ['runbook-pool#ceiling', 'runbook-pool#symptoms', 'runbook-pool#ceiling'] },
          { text: 'SEV1 is acknowledged in 5 minutes.', citations: ['policy-paging#acknowledgement'] },
        ],
        FIXTURE_PASSAGES,
      );
      const detail = await getRun(db, run.id);
      expect(detail?.run).toMatchObject({
        status: 'completed',
        terminal: 'emit',
        verdict: 'answered',
        band: 'sufficient',
        answer: 'Pool.',
        result: { claims: 2 },
        costUsd: 0.0042,
        tokensIn: 10,
        tokensOut: 2,
      });
      expect(detail?.run.finishedAt).not.toBeNull();
      expect(detail?.claims.map((c) => [c.index, c.text, c.citations.map((x) => x.chunkId)])).toEqual([
        [0, 'The ceiling is 100.', ['runbook-pool#ceiling', 'runbook-pool#symptoms']],
        [1, 'SEV1 is acknowledged in 5 minutes.', ['policy-paging#acknowledgement']],
      ]);
      // Once: a finished run is not completed again, and no citation is added to it.
      await expectStoreError(completeRun(db, run.id, {}, [{ text: 'late', citations: ['runbook-pool#ceiling'] }], FIXTURE_PASSAGES), 'run_not_running');
      expect(await rowCounts(db, run.id)).toMatchObject({ citations: 3 });
      await expectStoreError(completeRun(db, randomUUID(), {}, [], []), 'run_not_found');
    });
  });
}
