import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { searchSimilarChunks } from './chunk-similarity.ts';
import { describeApprovalContract } from './approvals.contract.ts';
import { describeCitationContract } from './citations.contract.ts';
import { describeCorpusContract } from './corpus.contract.ts';
import { describeFeedbackContract } from './feedback.contract.ts';
import { describeInvestigationContract } from './investigation.contract.ts';
import { describeRecordBatchContract } from './record-batch.contract.ts';
import { describeIndexSnapshotContract } from './index-snapshot.contract.ts';
import { FIXTURE_CHUNKS, FIXTURE_DOCUMENTS, FIXTURE_EMBEDDER_ID, FIXTURE_EMBEDDINGS, FIXTURE_ESTATE, queryNear } from './contract-fixtures.ts';
import { loadCorpus } from './corpus-repository.ts';
import type { Database } from './database.ts';
import { latestEvalRun, saveEvalRun } from './eval-run-repository.ts';
import { appliedMigrations, type MigrationReport, migrate, readMigrations, type VectorSearch } from './migrator.ts';
import { isOwnerAlive } from './owner-alive.ts';
import { claimOwnerLease, INTERRUPTED_BY_OUTAGE } from './owner-lease.ts';
import { simulateOutage } from './testing/simulated-outage.ts';
import { getRun } from './run-detail.ts';
import { appendSpan, createRun, finishRun, getRunRecord, interruptIfOwnerGone, markInterrupted, type NewRun } from './run-repository.ts';
import { describeRunContract } from './runs.contract.ts';
import { recordSpend, spendForRun } from './spend-ledger-repository.ts';
import { expectStoreError } from './store-contract-context.ts';

/** One backend under test: a fresh, unmigrated database and what it should report. */
export interface ContractTarget {
  readonly db: Database;
  /** What this backend must report: PGlite ships pgvector, Debian's server does not. */
  readonly expectedVectorSearch: VectorSearch;
  dispose(): Promise<void>;
}

export const STORE_TABLES = [
  'service',
  'service_dependency',
  'telemetry_event',
  'incident',
  'document',
  'chunk',
  'chunk_embedding',
  'session',
  'run',
  'span',
  'citation',
  'approval',
  'cache_entry',
  'provider_event',
  'spend_ledger',
  'eval_run',
  'feedback',
  'investigation',
  'investigation_file',
  'investigation_message',
  'spend_day',
  'spend_hold',
  'investigation_file_passage',
  'investigation_turn_event',
  'index_snapshot',
  'cache_withdrawal',
  'spend_ledger_replica',
] as const;

/**
 * The store's contract, run unchanged against every backend (STYLE 11): what
 * passes on PGlite must pass on a Postgres server, or the embedded database is
 * hiding a difference production would find. A topic with a file of its own is
 * `<topic>.contract.ts` (corpus, citations, runs, approvals, feedback,
 * investigations), reading the database through `StoreContractContext`.
 */
export function describeStoreContract(name: string, open: () => Promise<ContractTarget>, options: { skip?: boolean } = {}): void {
  describe.skipIf(options.skip === true)(`store contract: ${name}`, () => {
    let target: ContractTarget;
    let db: Database;
    let report: MigrationReport;
    let corpusVersion: string;
    const session = `session-${randomUUID()}`;
    const ownerId = `owner-${randomUUID()}`;
    const newRun = (over: Partial<NewRun> = {}): NewRun => ({
      sessionId: session,
      ownerId,
      workload: 'triage',
      question: 'why are orders slow?',
      corpusVersion,
      ...over,
    });

    beforeAll(async () => {
      target = await open();
      db = target.db;
      report = await migrate(db);
      corpusVersion = (await loadCorpus(db, FIXTURE_DOCUMENTS, FIXTURE_CHUNKS, FIXTURE_ESTATE, FIXTURE_EMBEDDINGS)).corpusVersion;
    });
    afterAll(async () => {
      await target?.dispose();
    });

    describe('migrations', () => {
      it('apply in order, record every version, and create the tables STORE_TABLES lists', async () => {
        const files = await readMigrations();
        const recorded = await appliedMigrations(db);
        expect(recorded.map((m) => m.version)).toEqual(files.map((f) => f.version));
        expect(recorded.map((m) => m.name)).toEqual(files.map((f) => f.name));
        const tables = await db.query<{ table_name: string }>(
          `select table_name from information_schema.tables
           where table_schema = current_schema() and table_type = 'BASE TABLE'`,
        );
        const names = tables.map((t) => t.table_name);
        expect(names).toEqual(expect.arrayContaining([...STORE_TABLES, 'schema_migrations']));
        expect(names.filter((n) => n !== 'schema_migrations').sort()).toEqual([...STORE_TABLES].sort());
      });

      it('re-running is a no-op', async () => {
        const before = await appliedMigrations(db);
        const again = await migrate(db);
        expect(again.applied).toEqual([]);
        expect(again.skipped).toEqual([]);
        expect(await appliedMigrations(db)).toEqual(before);
      });

      it('refuses an applied migration whose text was edited', async () => {
        const files = await readMigrations();
        const edited = files.map((m) => (m.version === 2 ? { ...m, sql: `${m.sql}\n-- edited` } : m));
        await expectStoreError(migrate(db, edited), 'migration_edited', /migration 2 \(corpus\)/);
      });

      it('records a conditional migration whose extension is unavailable as skipped, once', async () => {
        const files = await readMigrations();
        const next = files.length + 1;
        const conditional = {
          version: next,
          name: 'needs_missing',
          sql: 'create table never_created (x int)',
          requiresExtension: 'no_such_extension_sandscope',
        };
        const first = await migrate(db, [...files, conditional]);
        expect(first).toMatchObject({ applied: [], skipped: [next] });
        expect((await appliedMigrations(db)).at(-1)).toMatchObject({ version: next, name: 'needs_missing', outcome: 'skipped' });
        expect(await migrate(db, [...files, conditional])).toMatchObject({ applied: [], skipped: [] });
        const [table] = await db.query<{ n: number }>(
          "select count(*)::int as n from information_schema.tables where table_schema = current_schema() and table_name = 'never_created'",
        );
        expect(table?.n).toBe(0);
        await db.query('delete from schema_migrations where version = $1', [next]);
      });

      it(`reports vector search as the backend provides it, and records the conditional migration either way`, async () => {
        expect(report.vectorSearch).toBe(target.expectedVectorSearch);
        const pgvector = (await appliedMigrations(db)).find((m) => m.name === 'chunk_embedding_pgvector');
        expect(pgvector?.outcome).toBe(target.expectedVectorSearch === 'pgvector' ? 'applied' : 'skipped');
        const [column] = await db.query<{ n: number }>(
          `select count(*)::int as n from information_schema.columns
           where table_schema = current_schema() and table_name = 'chunk_embedding' and column_name = 'embedding_vector'`,
        );
        expect(column?.n).toBe(target.expectedVectorSearch === 'pgvector' ? 1 : 0);
      });
    });

    const context = () => ({ db, corpusVersion, session, newRun });

    describeCorpusContract(context);

    describeCitationContract(context);

    describeRunContract(context);

    describeApprovalContract(context);

    describe('start-up recovery', () => {
      it('interrupts running runs of owners with no lease, and leaves live owners alone', async () => {
        const lease = await claimOwnerLease(db);
        try {
          expect(await isOwnerAlive(db, lease.ownerId)).toBe(true);
          expect(await isOwnerAlive(db, 'owner-that-died')).toBe(false);
          const live = await createRun(db, newRun({ ownerId: lease.ownerId }));
          const orphan = await createRun(db, newRun({ ownerId: 'owner-that-died' }));
          await appendSpan(db, orphan.id, { node: 'classify', kind: 'start' });
          const interrupted = await markInterrupted(db, { ownerId: `recovering-${randomUUID()}` });
          expect(interrupted).toContain(orphan.id);
          expect(interrupted).not.toContain(live.id);
          const after = await getRun(db, orphan.id);
          expect(after?.run.status).toBe('interrupted');
          expect(after?.run.finishedAt).not.toBeNull();
          expect(after?.spans).toHaveLength(1);
          expect((await getRun(db, live.id))?.run.status).toBe('running');
          await expectStoreError(appendSpan(db, orphan.id, { node: 'zombie', kind: 'event' }), 'run_not_running');
          await finishRun(db, live.id, { status: 'failed', error: 'test cleanup' });
        } finally {
          await lease.release();
        }
        expect(await isOwnerAlive(db, lease.ownerId)).toBe(false);
      });
    });

    describe('recovery by a live replica reading a run (issue 11 section 2)', () => {
      it("interrupts one run whose owner holds no lease; never a live owner's run, nor the reader's own", async () => {
        const lease = await claimOwnerLease(db);
        const reader = `reader-${randomUUID()}`;
        try {
          const live = await createRun(db, newRun({ ownerId: lease.ownerId }));
          const orphan = await createRun(db, newRun({ ownerId: 'owner-that-died' }));
          const other = await createRun(db, newRun({ ownerId: 'another-owner-that-died' }));
          const own = await createRun(db, newRun({ ownerId: reader }));
          expect(await interruptIfOwnerGone(db, live.id, { ownerId: reader })).toBe(false);
          expect(await interruptIfOwnerGone(db, own.id, { ownerId: reader })).toBe(false);
          expect(await interruptIfOwnerGone(db, orphan.id, { ownerId: reader })).toBe(true);
          expect(await interruptIfOwnerGone(db, orphan.id, { ownerId: reader })).toBe(false); // once
          expect(await interruptIfOwnerGone(db, 'not-a-uuid', { ownerId: reader })).toBe(false);
          expect((await getRun(db, orphan.id))?.run).toMatchObject({
            status: 'interrupted',
            error: 'interrupted: its process (owner-that-died) stopped before the run finished',
          });
          expect((await getRun(db, other.id))?.run.status).toBe('running'); // only the run asked about
          expect((await getRun(db, live.id))?.run.status).toBe('running');
          expect((await getRun(db, own.id))?.run.status).toBe('running');
          for (const run of [live, other, own]) await finishRun(db, run.id, { status: 'failed', error: 'test cleanup' });
        } finally {
          await lease.release();
        }
      });
    });

    describe('owner lease after an outage (defect 4)', () => {
      it('is not held while its connection is lost, and renews itself on a new one once the database answers', async () => {
        const outage = simulateOutage(db);
        const lease = await claimOwnerLease(outage.db, `owner-${randomUUID()}`, { retryMs: 20 });
        try {
          expect(lease.held).toBe(true);
          lease.assertHeld();
          outage.down();
          expect(lease.held).toBe(false);
          await expectStoreError(
            Promise.resolve().then(() => lease.assertHeld()),
            'database_unreachable',
            /not renewed yet/,
          );
          await new Promise((resolve) => setTimeout(resolve, 100));
          expect(lease.held, 'no renewal while the database is down').toBe(false);
          outage.up();
          await vi.waitFor(() => expect(lease.held).toBe(true), { timeout: 10_000, interval: 20 });
          expect(await isOwnerAlive(db, lease.ownerId)).toBe(true);
        } finally {
          await lease.release();
        }
      });

      it('marks a run it was told of interrupted as soon as the database answers, and no other run', async () => {
        const outage = simulateOutage(db);
        const lease = await claimOwnerLease(outage.db, `owner-${randomUUID()}`, { retryMs: 20 });
        try {
          const cut = await createRun(db, newRun({ ownerId: lease.ownerId }));
          const live = await createRun(db, newRun({ ownerId: lease.ownerId }));
          const someoneElses = await createRun(db, newRun());
          outage.down();
          lease.interruptWhenReachable(cut.id);
          lease.interruptWhenReachable(someoneElses.id);
          await new Promise((resolve) => setTimeout(resolve, 100));
          expect((await getRunRecord(db, cut.id))?.status).toBe('running');
          outage.up();
          await vi.waitFor(async () => expect((await getRunRecord(db, cut.id))?.status).toBe('interrupted'), { timeout: 10_000, interval: 20 });
          expect((await getRunRecord(db, cut.id))?.error).toBe(INTERRUPTED_BY_OUTAGE);
          expect((await getRunRecord(db, live.id))?.status).toBe('running');
          expect((await getRunRecord(db, someoneElses.id))?.status, 'a lease interrupts only its own runs').toBe('running');
          await finishRun(db, live.id, { status: 'failed', error: 'test cleanup' });
          await finishRun(db, someoneElses.id, { status: 'failed', error: 'test cleanup' });
        } finally {
          await lease.release();
        }
      });
    });

    describe('similarity search', () => {
      it('in-process cosine finds the nearest chunk', async () => {
        const hits = await searchSimilarChunks(db, queryNear(2), { k: 3, vectorSearch: 'in-process', embedderId: FIXTURE_EMBEDDER_ID });
        expect(hits).toHaveLength(3);
        expect(hits[0]?.chunkId).toBe(FIXTURE_CHUNKS[2]!.id);
        expect(hits[0]!.similarity).toBeGreaterThan(0.9);
        expect(await searchSimilarChunks(db, queryNear(2), { k: 3, vectorSearch: 'in-process', embedderId: 'other-space' })).toEqual([]);
      });

      it('pgvector, where available, returns the same top hit as the in-process fallback', async () => {
        const query = queryNear(3);
        const fallback = await searchSimilarChunks(db, query, { k: 5, vectorSearch: 'in-process' });
        expect(fallback[0]?.chunkId).toBe(FIXTURE_CHUNKS[3]!.id);
        if (target.expectedVectorSearch === 'pgvector') {
          const indexed = await searchSimilarChunks(db, query, { k: 5, vectorSearch: 'pgvector' });
          expect(indexed[0]?.chunkId).toBe(fallback[0]?.chunkId);
          expect(indexed.map((h) => h.chunkId)).toEqual(fallback.map((h) => h.chunkId));
          indexed.forEach((h, i) => expect(h.similarity).toBeCloseTo(fallback[i]!.similarity, 5));
        } else {
          await expectStoreError(searchSimilarChunks(db, query, { k: 5, vectorSearch: 'pgvector' }), 'vector_search_unavailable');
        }
      });
    });

    describeFeedbackContract(() => ({ db, newRun }));

    describeInvestigationContract(() => ({ db }));

    describeIndexSnapshotContract(() => ({ db }));

    describeRecordBatchContract(() => ({ db, newRun }));

    describe('ledger and evaluations', () => {
      it('the ledger of a run sums each kind, and a negative amount is refused', async () => {
        const run = await createRun(db, newRun());
        await recordSpend(db, { runId: run.id, kind: 'reserve', usd: 0.5 });
        await recordSpend(db, { runId: run.id, kind: 'settle', usd: 0.125 });
        const spend = await spendForRun(db, run.id);
        expect(spend.reservedUsd).toBeCloseTo(0.5, 6);
        expect(spend.settledUsd).toBeCloseTo(0.125, 6);
        await expectStoreError(recordSpend(db, { runId: run.id, kind: 'settle', usd: -1 }), 'invalid_argument');
      });

      it('evaluation runs are saved and the latest read back', async () => {
        const first = await saveEvalRun(db, { kind: 'gate', summary: { falseAnswerRate: 0.06 } });
        const second = await saveEvalRun(db, { kind: 'gate', summary: { falseAnswerRate: 0.04, folds: [1, 2] } });
        // Saved in one instant (PGlite's clock ticks in milliseconds), the later one is still the latest (S-017).
        await db.query(`update eval_run set created_at = '2030-01-01T00:00:00Z' where id = any($1::uuid[])`, [[first.id, second.id]]);
        expect(await latestEvalRun(db, 'gate')).toEqual({ ...second, createdAt: '2030-01-01T00:00:00.000Z' });
        expect(await latestEvalRun(db, 'no-such-kind')).toBeNull();
      });
    });
  });
}
