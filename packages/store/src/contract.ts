import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { claimApproval, getApproval, recordApproval } from './approval-repository.ts';
import { appendMemory, listMemory, touchSession } from './session-repository.ts';
import { getCacheEntry, listCacheEntries, setCacheEntry } from './cache-repository.ts';
import { searchSimilarChunks } from './chunk-similarity.ts';
import { saveClaims } from './citation-repository.ts';
import { describeFeedbackContract } from './contract-feedback.ts';
import { describeInvestigationContract } from './contract-investigation.ts';
import { describeIndexSnapshotContract } from './contract-index-snapshot.ts';
import {
  FIXTURE_CHUNKS,
  FIXTURE_DOCUMENTS,
  FIXTURE_EMBEDDER_ID,
  FIXTURE_EMBEDDINGS,
  FIXTURE_ESTATE,
  fixtureVector,
  queryNear,
} from './contract-fixtures.ts';
import { loadCorpus } from './corpus-repository.ts';
import type { Database } from './database.ts';
import { latestEvalRun, saveEvalRun } from './eval-run-repository.ts';
import { appliedMigrations, type MigrationReport, migrate, readMigrations, type VectorSearch } from './migrator.ts';
import { isOwnerAlive } from './owner-alive.ts';
import { claimOwnerLease, INTERRUPTED_BY_OUTAGE } from './owner-lease.ts';
import { simulateOutage } from './testing/simulated-outage.ts';
import { recordProviderEvent } from './provider-event-repository.ts';
import { getRun } from './run-detail.ts';
import { appendSpan, createRun, finishRun, getRunRecord, listChildRuns, listRuns, markInterrupted, type NewRun } from './run-repository.ts';
import { recordSpend, settledSince } from './spend-ledger-repository.ts';
import { StoreError, type StoreErrorCode } from './store-error.ts';

/** One backend under test: a fresh, unmigrated database and what it should report. */
export interface ContractTarget {
  readonly db: Database;
  /** What this backend must report: PGlite ships pgvector, Debian's server does not. */
  readonly expectedVectorSearch: VectorSearch;
  dispose(): Promise<void>;
}

export const STORE_TABLES = [
  'service', 'service_dependency', 'telemetry_event', 'incident', 'document', 'chunk', 'chunk_embedding',
  'session', 'memory_item', 'run', 'span', 'citation', 'approval', 'cache_entry', 'provider_event',
  'spend_ledger', 'eval_run', 'feedback', 'investigation', 'investigation_file', 'investigation_message',
  'index_snapshot',
] as const;

/** Asserts a StoreError with this exact code — not merely "something threw". */
async function expectStoreError(promise: Promise<unknown>, code: StoreErrorCode, message?: RegExp): Promise<StoreError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, `expected StoreError ${code}, but nothing was thrown`).toBeInstanceOf(StoreError);
  const storeError = error as StoreError;
  expect(storeError.code).toBe(code);
  if (message) expect(storeError.message).toMatch(message);
  return storeError;
}

/** The SQLSTATE and constraint of a rejected raw statement. */
async function rejection(promise: Promise<unknown>): Promise<{ code?: string; constraint?: string }> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'expected the statement to be rejected').toBeDefined();
  const e = error as { code?: string; constraint?: string };
  return { code: e.code, constraint: e.constraint };
}

/**
 * The store's contract, run unchanged against every backend (STYLE 11): what
 * passes on PGlite must pass on a Postgres server, or the embedded database is
 * hiding a difference production would find.
 */
export function describeStoreContract(
  name: string,
  open: () => Promise<ContractTarget>,
  options: { skip?: boolean } = {},
): void {
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
      it('apply in order, record every version, and create the 22 tables', async () => {
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
        const conditional = { version: next, name: 'needs_missing', sql: 'create table never_created (x int)', requiresExtension: 'no_such_extension_sandscope' };
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

    describe('corpus', () => {
      it('loads idempotently, replaces what changed, and keeps a cited chunk that left the corpus', async () => {
        const again = await loadCorpus(db, FIXTURE_DOCUMENTS, FIXTURE_CHUNKS, FIXTURE_ESTATE, FIXTURE_EMBEDDINGS);
        expect(again.corpusVersion).toBe(corpusVersion);
        expect(again.documents.changed + again.chunks.changed + again.embeddings.changed + again.services.changed).toBe(0);

        const run = await createRun(db, newRun());
        await saveClaims(db, run.id, [{ text: 'Waits climb.', citations: ['runbook-pool#symptoms'] }]);
        const edited = FIXTURE_CHUNKS.map((c) => (c.id === 'runbook-pool#ceiling' ? { ...c, text: 'orders-db allows 120 connections.' } : c));
        const without = edited.filter((c) => c.id !== 'runbook-pool#symptoms' && c.id !== 'service-events-bus#retention');
        try {
          const changed = await loadCorpus(db, FIXTURE_DOCUMENTS, without, FIXTURE_ESTATE, {
            embedderId: FIXTURE_EMBEDDER_ID,
            vectors: without.map((c) => FIXTURE_EMBEDDINGS.vectors[FIXTURE_CHUNKS.findIndex((f) => f.id === c.id)]!),
          });
          expect(changed.corpusVersion).not.toBe(corpusVersion);
          // ceiling changed (text, and ord now 0); retention went; symptoms is cited, so it stays.
          expect(changed.chunks).toEqual({ changed: 1, removed: 1, retained: 1 });
          const [ceiling] = await db.query<{ text: string }>("select text from chunk where id = 'runbook-pool#ceiling'");
          expect(ceiling?.text).toBe('orders-db allows 120 connections.');
          const kept = await db.query("select id from chunk where id in ('runbook-pool#symptoms', 'service-events-bus#retention')");
          expect(kept).toEqual([{ id: 'runbook-pool#symptoms' }]);

          // Text changed back with no vectors given: the old vector no longer describes the text, so it goes.
          await loadCorpus(db, FIXTURE_DOCUMENTS, FIXTURE_CHUNKS, FIXTURE_ESTATE);
          const embedded = await db.query<{ chunk_id: string }>('select chunk_id from chunk_embedding order by chunk_id');
          expect(embedded.map((e) => e.chunk_id)).toEqual(['policy-paging#acknowledgement', 'runbook-pool#symptoms', 'service-events-bus#overview']);
        } finally {
          const restored = await loadCorpus(db, FIXTURE_DOCUMENTS, FIXTURE_CHUNKS, FIXTURE_ESTATE, FIXTURE_EMBEDDINGS);
          expect(restored.corpusVersion).toBe(corpusVersion);
        }
        const [count] = await db.query<{ n: number }>('select count(*)::int as n from chunk_embedding');
        expect(count?.n).toBe(FIXTURE_CHUNKS.length);
      });
    });

    describe('citations', () => {
      it('the foreign key refuses a citation to a chunk that does not exist', async () => {
        const run = await createRun(db, newRun());
        const refused = await rejection(
          db.query('insert into citation (run_id, claim_index, claim_text, chunk_id) values ($1, 0, $2, $3)', [
            run.id,
            'made up',
            'no-such-doc#nowhere',
          ]),
        );
        expect(refused).toEqual({ code: '23503', constraint: 'citation_chunk_id_fkey' });
      });

      it('saveClaims rejects the whole set when one chunk id is bad, naming it', async () => {
        const run = await createRun(db, newRun());
        await expectStoreError(
          saveClaims(db, run.id, [
            { text: 'The ceiling is 100.', citations: ['runbook-pool#ceiling'] },
            { text: 'Retention is forever.', citations: ['service-events-bus#retention', 'service-events-bus#forever'] },
          ]),
          'citation_chunk_missing',
          /claim 1 cites chunk "service-events-bus#forever"/,
        );
        expect((await getRun(db, run.id))?.claims).toEqual([]);
        await expectStoreError(saveClaims(db, run.id, [{ text: 'uncited', citations: [] }]), 'claim_without_citation');
      });
    });

    describe('runs', () => {
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
        await saveClaims(db, gated.id, [
          { text: 'The ceiling is 100.', citations: ['runbook-pool#ceiling', 'runbook-pool#symptoms'] },
          { text: 'SEV1 is acknowledged in 5 minutes.', citations: ['policy-paging#acknowledgement'] },
        ]);
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
              { chunkId: 'runbook-pool#ceiling', doc: 'runbook-pool.md', heading: 'Ceiling' },
              { chunkId: 'runbook-pool#symptoms', doc: 'runbook-pool.md', heading: 'Symptoms' },
            ],
          },
          {
            index: 1,
            text: 'SEV1 is acknowledged in 5 minutes.',
            citations: [{ chunkId: 'policy-paging#acknowledgement', doc: 'policy-paging.md', heading: 'Acknowledgement' }],
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

    describe('approvals', () => {
      async function gatedRun() {
        const gated = await createRun(db, newRun({ workload: 'change' }));
        await finishRun(db, gated.id, { status: 'completed', terminal: 'await_approval' });
        const approval = await createRun(db, newRun({ workload: 'change', parentRunId: gated.id }));
        return { gated, approval };
      }

      it('are unique per gated run', async () => {
        const { gated, approval } = await gatedRun();
        const recorded = await recordApproval(db, { gatedRunId: gated.id, approvalRunId: approval.id, sessionId: session });
        expect(recorded).toMatchObject({ gatedRunId: gated.id, approvalRunId: approval.id, sessionId: session });
        const second = await createRun(db, newRun({ workload: 'change', parentRunId: gated.id }));
        await expectStoreError(
          recordApproval(db, { gatedRunId: gated.id, approvalRunId: second.id, sessionId: session }),
          'already_approved',
        );
        const raw = await rejection(
          db.query('insert into approval (gated_run_id, approval_run_id, session_id) values ($1, $2, $3)', [gated.id, second.id, session]),
        );
        expect(raw).toEqual({ code: '23505', constraint: 'approval_gated_run_id_key' });
        expect((await getRun(db, gated.id))?.approval?.approvalRunId).toBe(approval.id);
      });

      it('claimed by twenty at once: one wins and creates its run; the others are already_approved and create none (defect 7)', async () => {
        const gated = await createRun(db, newRun({ workload: 'change' }));
        await finishRun(db, gated.id, { status: 'completed', terminal: 'await_approval' });
        const claims = await Promise.allSettled(
          Array.from({ length: 20 }, () =>
            claimApproval(db, { sessionId: session, run: newRun({ id: randomUUID(), workload: 'change', parentRunId: gated.id }) as NewRun & { id: string; parentRunId: string } }),
          ),
        );
        const won = claims.filter((c) => c.status === 'fulfilled');
        const lost = claims.filter((c): c is PromiseRejectedResult => c.status === 'rejected');
        expect(won).toHaveLength(1);
        expect(lost.map((c) => (c.reason as StoreError).code)).toEqual(Array(19).fill('already_approved'));
        const winner = (won[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof claimApproval>>>).value;
        expect(winner.run).toMatchObject({ parentRunId: gated.id, status: 'running', sessionId: session });
        expect((await listChildRuns(db, gated.id)).map((c) => c.id)).toEqual([winner.run.id]);
        expect((await getApproval(db, gated.id))?.approvalRunId).toBe(winner.run.id);
        await finishRun(db, winner.run.id, { status: 'completed', terminal: 'emit' });
      });

      it('still refuse an approval naming a run that does not exist: the deferred key is checked at commit', async () => {
        const gated = await createRun(db, newRun({ workload: 'change' }));
        await finishRun(db, gated.id, { status: 'completed', terminal: 'await_approval' });
        const raw = await rejection(
          db.query('insert into approval (gated_run_id, approval_run_id, session_id) values ($1, $2, $3)', [gated.id, randomUUID(), session]),
        );
        expect(raw).toEqual({ code: '23503', constraint: 'approval_approval_run_id_fkey' });
        expect(await getApproval(db, gated.id)).toBeNull();
      });

      it('need a run that stopped at await_approval, from its own session', async () => {
        const emitted = await createRun(db, newRun());
        await finishRun(db, emitted.id, { status: 'completed', terminal: 'emit' });
        const child = await createRun(db, newRun({ parentRunId: emitted.id }));
        await expectStoreError(
          recordApproval(db, { gatedRunId: emitted.id, approvalRunId: child.id, sessionId: session }),
          'not_awaiting_approval',
        );
        const { gated, approval } = await gatedRun();
        await expectStoreError(
          recordApproval(db, { gatedRunId: gated.id, approvalRunId: approval.id, sessionId: 'someone-else' }),
          'approval_session_mismatch',
        );
      });
    });

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

    describe('owner lease after an outage (defect 4)', () => {
      it('is not held while its connection is lost, and renews itself on a new one once the database answers', async () => {
        const outage = simulateOutage(db);
        const lease = await claimOwnerLease(outage.db, `owner-${randomUUID()}`, { retryMs: 20 });
        try {
          expect(lease.held).toBe(true);
          lease.assertHeld();
          outage.down();
          expect(lease.held).toBe(false);
          await expectStoreError(Promise.resolve().then(() => lease.assertHeld()), 'database_unreachable', /not renewed yet/);
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

    describe('sessions, ledger, evaluations and cache', () => {
      it('sessions are created on first touch and scope memory', async () => {
        const id = `session-${randomUUID()}`;
        const first = await touchSession(db, id);
        const second = await touchSession(db, id);
        expect(second.createdAt).toBe(first.createdAt);
        expect(Date.parse(second.lastSeenAt)).toBeGreaterThanOrEqual(Date.parse(first.lastSeenAt));
        for (let i = 0; i < 4; i++) await appendMemory(db, { sessionId: id, role: i % 2 ? 'assistant' : 'user', content: `m${i}` });
        await appendMemory(db, { sessionId: `session-${randomUUID()}`, role: 'user', content: 'elsewhere' });
        expect((await listMemory(db, id, 3)).map((m) => m.content)).toEqual(['m1', 'm2', 'm3']);
      });

      it('spend settled since a moment sums only settlements', async () => {
        const since = new Date(Date.now() - 1000);
        const before = await settledSince(db, since);
        const run = await createRun(db, newRun());
        await recordSpend(db, { runId: run.id, kind: 'reserve', usd: 0.5 });
        await recordSpend(db, { runId: run.id, kind: 'settle', usd: 0.125 });
        expect(await settledSince(db, since)).toBeCloseTo(before + 0.125, 6);
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

      it('cache entries are set, replaced, read by key and listed by namespace', async () => {
        const ns = `ns-${randomUUID()}`;
        const entry = { namespace: ns, corpusVersion, workload: 'triage', promptHash: 'h1', embedding: fixtureVector(7, 4), response: { answer: 'a' } };
        await setCacheEntry(db, { ...entry, key: `${ns}:1` });
        await setCacheEntry(db, { ...entry, key: `${ns}:2`, embedding: null, response: ['x'] });
        await setCacheEntry(db, { ...entry, key: `${ns}:1`, response: { answer: 'b' } });
        await setCacheEntry(db, { ...entry, key: `other:${ns}`, namespace: `other-${ns}` });
        const got = await getCacheEntry(db, `${ns}:1`);
        expect(got?.response).toEqual({ answer: 'b' });
        expect(got?.embedding).toHaveLength(4);
        got?.embedding?.forEach((x, i) => expect(x).toBeCloseTo(fixtureVector(7, 4)[i]!, 6));
        expect((await getCacheEntry(db, `${ns}:2`))?.response).toEqual(['x']);
        expect((await listCacheEntries(db, ns)).map((e) => e.key).sort()).toEqual([`${ns}:1`, `${ns}:2`]);
        expect(await getCacheEntry(db, 'absent')).toBeNull();
      });
    });
  });
}
