import { TraceRecorder } from '@sandscope/engine/orchestrator';
import { createRun, type Database, finishRun, listProviderEvents, listSpans, type Queryable, StoreError, startStore, type Store } from '@sandscope/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceMetrics } from './metrics.ts';
import { RunRecorder, type RunStreamEvent } from './run-recorder.ts';
import { RUN_SPAN_ATTRIBUTES } from './span-attributes.ts';

/**
 * The recorder's promise to a client (issue 11 §2, ADR-0004): an event is
 * forwarded only once it is STORED, so whatever a client watched live is on the
 * record — a stream resumed on another replica, or a kill -9 right after, shows
 * no event the record lacks. Batching the writes (one append per flush) must
 * keep it. Checked against what is really committed: every write through the
 * database below is followed, before its caller hears back, by a read of the
 * run's span and provider-event seqs, and each forwarded event is checked
 * against that read at the moment it is forwarded.
 */
let store: Store;

beforeAll(async () => {
  store = await startStore({ dataDir: 'memory://' });
}, 120_000);

afterAll(async () => {
  await store?.close();
});

interface Committed {
  spans: Set<number>;
  providers: Set<number>;
}

/** `db`, with what is committed for `runId` re-read after every statement and transaction. */
function watched(db: Database, runId: () => string, committed: Committed): Database {
  const refresh = async () => {
    const spans = await db.query<{ seq: number }>('select seq from span where run_id = $1', [runId()]);
    const providers = await db.query<{ seq: number }>('select seq from provider_event where run_id = $1', [runId()]);
    committed.spans = new Set(spans.map((r) => r.seq));
    committed.providers = new Set(providers.map((r) => r.seq));
  };
  const query: Queryable['query'] = async (sql, params) => {
    const rows = await db.query(sql, params);
    await refresh();
    return rows as never;
  };
  return {
    dialect: db.dialect,
    description: db.description,
    query,
    exec: (sql) => db.exec(sql),
    transaction: async (fn) => {
      const result = await db.transaction(fn);
      await refresh();
      return result;
    },
    holdConnection: () => db.holdConnection(),
    close: () => db.close(),
  };
}

/** A run's events as the graph emits them: bursts in one turn of the event loop, with waits between. */
async function emitRun(trace: TraceRecorder): Promise<void> {
  const tick = () => new Promise((resolve) => setImmediate(resolve));
  trace.node('classify', 'start', {});
  trace.node('classify', 'end', { entities: ['orders-db'] }, 0.5);
  trace.node('retrieve', 'start', {});
  await tick();
  trace.node('retrieve', 'end', { top: ['a#b'] }, 1.5);
  trace.node('hypothesise', 'start', {});
  trace.spend({ kind: 'reserved', reservationId: 1, usd: 0.02, pricedAgainst: 'offline', promptTokens: 10, outputTokens: 10 });
  await Promise.resolve();
  trace.provider({ provider: 'offline', kind: 'served', latencyMs: 2, costUsd: 0 });
  trace.spend({ kind: 'settled', reservationId: 1, reservedUsd: 0.02, actualUsd: 0, provider: 'offline' });
  trace.node('hypothesise', 'end', { attempt: 1 }, 3);
  await tick();
  await tick();
  trace.node('emit', 'start', {});
  trace.node('emit', 'end', { terminal: 'emit' }, 0.1);
}

describe('RunRecorder: what a client saw is stored before it saw it', () => {
  it('forwards each node and provider event only after its row is committed, in order, exactly as stored', async () => {
    const committed: Committed = { spans: new Set(), providers: new Set() };
    let runId = '';
    const db = watched(store.db, () => runId, committed);
    runId = (await createRun(store.db, { sessionId: 'recorder-test-session', ownerId: store.ownerId, workload: 'triage', question: 'q?', corpusVersion: 'v' }))
      .id;
    const seen: { event: RunStreamEvent; storedWhenSeen: boolean }[] = [];
    const recorder = new RunRecorder({
      db,
      runId,
      metrics: new ServiceMetrics(),
      allow: RUN_SPAN_ATTRIBUTES,
      forward: (event) => {
        const storedWhenSeen = event.type === 'node' ? committed.spans.has(event.data.seq) : committed.providers.has(event.data.seq);
        seen.push({ event, storedWhenSeen });
      },
    });
    await emitRun(new TraceRecorder(runId, Date.now, [recorder.sink]));
    await recorder.drain();

    expect(
      seen.filter((s) => !s.storedWhenSeen).map((s) => `${s.event.type} ${s.event.data.seq}`),
      'events forwarded before their row was committed',
    ).toEqual([]);
    const nodes = seen.filter((s) => s.event.type === 'node').map((s) => s.event.data);
    expect(nodes.map((n) => n.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(await listSpans(store.db, runId)).toHaveLength(8);
    expect(recorder.nodeEvents).toEqual(nodes);
    const providers = seen.filter((s) => s.event.type === 'provider').map((s) => s.event.data);
    expect(providers.map((p) => p.seq)).toEqual((await listProviderEvents(store.db, runId)).map((p) => p.seq));
    expect(providers).toHaveLength(1);
    const ledger = await store.db.query<{ kind: string }>('select kind from spend_ledger where run_id = $1 order by id', [runId]);
    expect(ledger.map((l) => l.kind)).toEqual(['reserve', 'settle', 'release']);
  });

  it('forwards nothing that could not be stored: a run stopped under it fails drain() and the client sees no event after', async () => {
    const runId = (
      await createRun(store.db, { sessionId: 'recorder-test-session', ownerId: store.ownerId, workload: 'triage', question: 'q?', corpusVersion: 'v' })
    ).id;
    const seen: RunStreamEvent[] = [];
    const recorder = new RunRecorder({ db: store.db, runId, metrics: new ServiceMetrics(), allow: RUN_SPAN_ATTRIBUTES, forward: (e) => seen.push(e) });
    const trace = new TraceRecorder(runId, Date.now, [recorder.sink]);
    trace.node('classify', 'start', {});
    await recorder.drain();
    expect(seen).toHaveLength(1);
    await finishRun(store.db, runId, { status: 'failed', error: 'interrupted elsewhere' });
    trace.node('classify', 'end', {}, 1);
    trace.node('retrieve', 'start', {});
    const failure = await recorder.drain().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(StoreError);
    expect((failure as StoreError).code).toBe('run_not_running');
    expect(seen).toHaveLength(1);
    expect(await listSpans(store.db, runId)).toHaveLength(1);
  });
});
