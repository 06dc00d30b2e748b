import { describe, expect, it } from 'vitest';
import { describeCacheStoreContract } from '@sandscope/engine/testing/contracts';
import { type Database, openDatabase } from './database.ts';
import { DatabaseCacheStore } from './database-cache-store.ts';
import { migrate } from './migrator.ts';

let db: Database | undefined;

// One embedded database is one process's: the "replica" is a second store over the same database.
describeCacheStoreContract('database (PGlite memory://)', {
  async create() {
    db = await openDatabase({ dataDir: 'memory://' });
    await migrate(db);
    return new DatabaseCacheStore(db);
  },
  createReplica: async () => new DatabaseCacheStore(db!),
  dispose: async () => db?.close(),
});

describe('DatabaseCacheStore columns', () => {
  it('still finds a row written before vector codes, by its real[] embedding (migration 0027)', async () => {
    const own = await openDatabase({ dataDir: 'memory://' });
    try {
      await migrate(own);
      await own.query(
        `insert into cache_entry (key, namespace, corpus_version, workload, prompt_hash, embedder_id, embedding, evidence_ids, response, created_at)
         values ('k-old', 'v1\u241ftriage', 'v1', 'triage', 'k-old', 'hashing-768-v1', array[0.5, 0, -0.25]::real[], array['d#1'], '"old answer"'::jsonb, now())`,
      );
      const store = new DatabaseCacheStore(own);
      const [candidate] = await store.scan('v1\u241ftriage');
      expect(candidate && Array.from(candidate.vector ?? [])).toEqual([0.5, 0, -0.25]);
      expect((await store.get('k-old'))?.vector).toEqual([0.5, 0, -0.25]);
      expect((await store.get('k-old'))?.text).toBe('old answer');
    } finally {
      await own.close();
    }
  });

  it("keeps the engine's polarity words out of the workload column", async () => {
    const own = await openDatabase({ dataDir: 'memory://' });
    try {
      await migrate(own);
      const store = new DatabaseCacheStore(own);
      const namespace = 'corpus-v1\u241ftriage\u241fafter,not';
      await store.set({ key: 'k-polarity', namespace, embedderId: null, vector: null, evidenceIds: [], text: 'answer', createdAt: 0 });
      const rows = await own.query<{ corpus_version: string; workload: string }>('select corpus_version, workload from cache_entry');
      expect(rows).toEqual([{ corpus_version: 'corpus-v1', workload: 'triage' }]);
      expect((await store.scan(namespace)).map((e) => e.key)).toEqual(['k-polarity']);
    } finally {
      await own.close();
    }
  });
});
