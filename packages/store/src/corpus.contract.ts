import { beforeAll, describe, expect, it } from 'vitest';
import { saveClaims } from './citation-repository.ts';
import { FIXTURE_CHUNKS, FIXTURE_DOCUMENTS, FIXTURE_EMBEDDER_ID, FIXTURE_EMBEDDINGS, FIXTURE_ESTATE } from './contract-fixtures.ts';
import { loadCorpus } from './corpus-repository.ts';
import { createRun } from './run-repository.ts';
import type { Database } from './database.ts';
import type { StoreContractContext } from './store-contract-context.ts';

/** The store contract's cases for the corpus tables: loaded idempotently, changed chunks replaced, a cited chunk kept (store.contract.ts runs them on every backend). */
export function describeCorpusContract(context: () => StoreContractContext): void {
  describe('corpus', () => {
    let db: Database;
    let corpusVersion: string;
    let newRun: StoreContractContext['newRun'];
    beforeAll(() => {
      ({ db, corpusVersion, newRun } = context());
    });

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
}
