import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CacheCandidate, CacheEntry, CacheStore } from './cache-store.ts';

/**
 * The one contract every `CacheStore` must pass (STYLE rule 11), run against the
 * in-memory store (`in-memory-cache-store.test.ts`), the database store on PGlite and on a
 * Postgres server (packages/store) and the Redis store (apps/agent). Replicas
 * share a cache only through the store, so "another instance over the same
 * backing sees the entry" is part of the contract, not an extra.
 */
export interface CacheStoreContractHarness {
  /** A store over an empty backing (its own namespace prefix, schema or key prefix). */
  create(): Promise<CacheStore>;
  /**
   * A second store over the SAME backing as the one `create` returned last — what
   * another replica would open. Absent for a process-local store, which has none.
   */
  createReplica?(): Promise<CacheStore>;
  /** Closes whatever `create` and `createReplica` opened. */
  dispose?(): Promise<void>;
}

/** Float32-exact values: a vector is stored as real[] / from a Float32Array, and must read back equal. */
const VECTOR = [0.5, -0.25, 0.125, Math.fround(0.1), 0, 1];

function entry(overrides: Partial<CacheEntry> & Pick<CacheEntry, 'key'>): CacheEntry {
  return {
    namespace: 'corpus-v1\u241ftriage',
    embedderId: 'hashing-256',
    vector: VECTOR,
    evidenceIds: ['runbook-db#pool', 'policy-change#approval'],
    text: '{"claims":[{"text":"The pool ceiling is 100.","citations":["runbook-db#pool"]}]}',
    createdAt: 1_773_489_600_123,
    ...overrides,
  };
}

/**
 * Vectors compared as the cache reads them, float32 (`Float32Array.from` before
 * cosine): a real[] column gives 0.1 back for the float32 nearest 0.1, and that
 * is the same vector.
 */
const f32 = <E extends CacheEntry | undefined>(e: E): E => (e?.vector ? { ...e, vector: e.vector.map(Math.fround) } : e);
/** What a scan should give for entries: each without its answer, its vector as plain float32 numbers, by key. */
const candidates = (entries: readonly (CacheEntry | CacheCandidate)[]) =>
  entries
    .map(({ vector, ...rest }) => {
      const { text: _, ...candidate } = rest as typeof rest & { text?: string };
      return { ...candidate, vector: vector ? Array.from(vector, Math.fround) : null };
    })
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));

export function describeCacheStoreContract(name: string, harness: CacheStoreContractHarness, options: { skip?: boolean } = {}): void {
  describe.skipIf(options.skip ?? false)(`CacheStore contract: ${name}`, () => {
    let store: CacheStore;
    beforeAll(async () => {
      store = await harness.create();
    });
    afterAll(async () => {
      await harness.dispose?.();
    });

    it('reads nothing for a key never written', async () => {
      expect(await store.get('absent-key')).toBeUndefined();
      expect(await store.scan('absent-namespace')).toEqual([]);
    });

    it('reads back exactly what was written: vector, evidence, text and time', async () => {
      const written = entry({ key: 'k-roundtrip', text: 'line one\nline two — “quoted” ✓' });
      await store.set(written);
      expect(f32(await store.get('k-roundtrip'))).toEqual(f32(written));
    });

    it('holds an exact-match-only entry (no embedder, no vector, no evidence)', async () => {
      const written = entry({ key: 'k-exact-only', embedderId: null, vector: null, evidenceIds: [] });
      await store.set(written);
      expect(f32(await store.get('k-exact-only'))).toEqual(f32(written));
    });

    it('a second write under one key replaces the first, in get and in scan', async () => {
      const ns = 'replace\u241ftriage';
      await store.set(entry({ key: 'k-replace', namespace: ns, text: 'first' }));
      await store.set(entry({ key: 'k-replace', namespace: ns, text: 'second', createdAt: 1_773_489_700_000 }));
      expect((await store.get('k-replace'))?.text).toBe('second');
      const scanned = await store.scan(ns);
      expect(scanned.map((e) => [e.key, e.createdAt])).toEqual([['k-replace', 1_773_489_700_000]]);
    });

    it('a scan carries no answers, only what a similarity search compares (S-079)', async () => {
      const ns = 'light\u241ftriage';
      const written = entry({ key: 'k-light', namespace: ns, text: 'an answer a scan that misses must not move'.repeat(50) });
      await store.set(written);
      const scanned = await store.scan(ns);
      expect(scanned.some((c) => 'text' in c)).toBe(false);
      expect(candidates(scanned)).toEqual(candidates([written]));
    });

    it('a vector of many zeros reads back exact, and so does one with none', async () => {
      const ns = 'vectors\u241ftriage';
      const sparse = Array.from({ length: 768 }, (_, i) => (i === 3 ? Math.fround(0.6) : i === 700 ? Math.fround(-0.8) : 0));
      const dense = Array.from({ length: 768 }, (_, i) => Math.fround(Math.sin(i + 1) / 20));
      await store.set(entry({ key: 'k-sparse', namespace: ns, vector: sparse }));
      await store.set(entry({ key: 'k-dense', namespace: ns, vector: dense }));
      expect((await store.get('k-sparse'))?.vector).toEqual(sparse);
      expect((await store.get('k-dense'))?.vector).toEqual(dense);
      expect(candidates(await store.scan(ns))).toEqual(
        candidates([entry({ key: 'k-sparse', namespace: ns, vector: sparse }), entry({ key: 'k-dense', namespace: ns, vector: dense })]),
      );
    });

    it('scans one namespace only: namespaces that share a prefix are not mixed', async () => {
      await store.set(entry({ key: 'k-ns-a1', namespace: 'v9\u241ftriage' }));
      await store.set(entry({ key: 'k-ns-a2', namespace: 'v9\u241ftriage', vector: [1, 0, 0, 0, 0, 0] }));
      await store.set(entry({ key: 'k-ns-b', namespace: 'v9\u241ftriage-2' }));
      await store.set(entry({ key: 'k-ns-c', namespace: 'v9\u241fchange' }));
      const scanned = candidates(await store.scan('v9\u241ftriage'));
      expect(scanned).toEqual(
        candidates([
          entry({ key: 'k-ns-a1', namespace: 'v9\u241ftriage' }),
          entry({ key: 'k-ns-a2', namespace: 'v9\u241ftriage', vector: [1, 0, 0, 0, 0, 0] }),
        ]),
      );
      expect((await store.scan('v9\u241fchange')).map((e) => e.key)).toEqual(['k-ns-c']);
    });

    it('a deleted entry is gone from get and from scan, and says whether there was one', async () => {
      const ns = 'delete\u241ftriage';
      await store.set(entry({ key: 'k-delete', namespace: ns }));
      await store.set(entry({ key: 'k-keep', namespace: ns, text: 'kept' }));
      expect(await store.delete('k-delete')).toBe(true);
      expect(await store.get('k-delete')).toBeUndefined();
      expect((await store.scan(ns)).map((e) => e.key)).toEqual(['k-keep']);
      expect(await store.delete('k-delete')).toBe(false);
      expect(await store.delete('never-written')).toBe(false);
    });

    it('another instance over the same backing reads what this one wrote (a second replica)', async (context) => {
      if (!harness.createReplica) {
        context.skip();
        return;
      }
      const replica = await harness.createReplica();
      const written = entry({ key: 'k-replica', namespace: 'shared\u241ftriage' });
      await store.set(written);
      expect(f32(await replica.get('k-replica'))).toEqual(f32(written));
      expect(candidates(await replica.scan('shared\u241ftriage'))).toEqual(candidates([written]));
      // …and the other way round.
      await replica.set(entry({ key: 'k-replica-2', namespace: 'shared\u241ftriage', text: 'from B' }));
      expect((await store.get('k-replica-2'))?.text).toBe('from B');
      // A mark on one replica evicts for every replica.
      expect(await replica.delete('k-replica')).toBe(true);
      expect(await store.get('k-replica')).toBeUndefined();
    });
  });
}
