import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Database } from './database.ts';
import { INDEX_SNAPSHOTS_KEPT, loadIndexSnapshot, saveIndexSnapshot } from './index-snapshot-repository.ts';

/** The index snapshot cases of the store contract (issue 11), run on every backend. */
export function describeIndexSnapshotContract(context: () => { readonly db: Database }): void {
  describe('index snapshots', () => {
    const bytes = new Uint8Array(randomBytes(100_003));
    const key = { corpusVersion: 'c-1', indexFormat: 'kb-snapshot-test/hashing-768-v1/abc' };

    it('round-trip byte for byte through several parts, and a key of other index code finds nothing', async () => {
      const { db } = context();
      expect(await loadIndexSnapshot(db, key)).toEqual({ status: 'missing' });
      expect(await saveIndexSnapshot(db, key, bytes, { partBytes: 30_000 })).toEqual({ parts: 4 });
      const loaded = await loadIndexSnapshot(db, key);
      expect(loaded.status).toBe('found');
      expect(Buffer.from((loaded as { bytes: Uint8Array }).bytes).equals(Buffer.from(bytes))).toBe(true);
      expect(await loadIndexSnapshot(db, { ...key, indexFormat: 'kb-snapshot-test/hashing-768-v1/def' })).toEqual({ status: 'missing' });
      expect(await loadIndexSnapshot(db, { ...key, corpusVersion: 'c-2' })).toEqual({ status: 'missing' });
    });

    it('a changed part or a missing one is corrupt, not loaded; saving again replaces it', async () => {
      const { db } = context();
      await saveIndexSnapshot(db, key, bytes, { partBytes: 30_000 });
      await db.query("update index_snapshot set bytes = overlay(bytes placing '\\x00'::bytea from 10) where corpus_version = $1 and part = 2", [
        key.corpusVersion,
      ]);
      expect(await loadIndexSnapshot(db, key)).toMatchObject({ status: 'corrupt', reason: /digest/ });
      await saveIndexSnapshot(db, key, bytes, { partBytes: 30_000 });
      expect((await loadIndexSnapshot(db, key)).status).toBe('found');
      await db.query('delete from index_snapshot where corpus_version = $1 and part = 1', [key.corpusVersion]);
      expect(await loadIndexSnapshot(db, key)).toMatchObject({ status: 'corrupt', reason: /3 of 4 parts/ });
    });

    it(`keeps the newest ${INDEX_SNAPSHOTS_KEPT} snapshots and drops older ones`, async () => {
      const { db } = context();
      for (const v of ['c-10', 'c-11', 'c-12']) {
        await saveIndexSnapshot(db, { ...key, corpusVersion: v }, bytes.subarray(0, 1000));
        await new Promise((r) => setTimeout(r, 5));
      }
      expect((await loadIndexSnapshot(db, { ...key, corpusVersion: 'c-10' })).status).toBe('missing');
      expect((await loadIndexSnapshot(db, { ...key, corpusVersion: 'c-11' })).status).toBe('found');
      expect((await loadIndexSnapshot(db, { ...key, corpusVersion: 'c-12' })).status).toBe('found');
    });

    it('two replicas saving the same snapshot at once both succeed, and it loads whole', async () => {
      const { db } = context();
      const k = { ...key, corpusVersion: 'c-race' };
      await Promise.all([saveIndexSnapshot(db, k, bytes, { partBytes: 20_000 }), saveIndexSnapshot(db, k, bytes, { partBytes: 20_000 })]);
      const loaded = await loadIndexSnapshot(db, k);
      expect(loaded.status).toBe('found');
      expect(Buffer.from((loaded as { bytes: Uint8Array }).bytes).equals(Buffer.from(bytes))).toBe(true);
    });
  });
}
