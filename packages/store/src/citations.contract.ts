import { beforeAll, describe, expect, it } from 'vitest';
import { saveClaims } from './citation-repository.ts';
import { FIXTURE_CHUNKS, FIXTURE_DOCUMENTS, FIXTURE_ESTATE } from './contract-fixtures.ts';
import { loadCorpus } from './corpus-repository.ts';
import { getRun } from './run-detail.ts';
import { completeRun } from './run-record-batch.ts';
import { createRun } from './run-repository.ts';
import type { Database } from './database.ts';
import { expectStoreError, rejection, type StoreContractContext } from './store-contract-context.ts';

/** The store contract's cases for citations: rows with a foreign key to the chunk they cite (store.contract.ts runs them on every backend). */
export function describeCitationContract(context: () => StoreContractContext): void {
  describe('citations', () => {
    let db: Database;
    let newRun: StoreContractContext['newRun'];
    let corpusVersion: string;
    beforeAll(() => {
      ({ db, newRun, corpusVersion } = context());
    });

    it('the foreign key refuses a citation to a chunk that does not exist', async () => {
      const run = await createRun(db, newRun());
      const refused = await rejection(
        db.query('insert into citation (run_id, claim_index, claim_text, chunk_id) values ($1, 0, $2, $3)', [run.id, 'made up', 'no-such-doc#nowhere']),
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

    it('a citation keeps the passage it was recorded with when another corpus rewrites the chunk (S-257)', async () => {
      // What the run read: the fixture's ceiling passage, under the heading and document the run named it by.
      const ceiling = FIXTURE_CHUNKS.find((c) => c.id === 'runbook-pool#ceiling')!;
      const read = { chunkId: ceiling.id, doc: ceiling.doc, heading: 'Ceiling', text: ceiling.text };
      const run = await createRun(db, newRun());
      await completeRun(
        db,
        run.id,
        { terminal: 'emit', verdict: 'answered' },
        [{ text: 'orders-db allows 100 connections.', citations: [ceiling.id] }],
        [read],
      );
      // A claim saved without the passage it read (as every citation was before S-257) records none.
      const unrecorded = await createRun(db, newRun());
      await saveClaims(db, unrecorded.id, [{ text: 'orders-db allows 100 connections.', citations: [ceiling.id] }]);

      // Another replica starts on a corpus where the passage says 250, and writes it over the shared table.
      const rewritten = FIXTURE_CHUNKS.map((c) => (c.id === ceiling.id ? { ...c, heading: 'Pool ceiling', text: 'orders-db allows 250 connections.' } : c));
      try {
        const second = await loadCorpus(db, FIXTURE_DOCUMENTS, rewritten, FIXTURE_ESTATE);
        expect(second.chunks.changed).toBe(1);
        const [now] = await db.query<{ text: string }>('select text from chunk where id = $1', [ceiling.id]);
        expect(now?.text).toBe('orders-db allows 250 connections.');

        expect((await getRun(db, run.id))?.claims).toEqual([
          { index: 0, text: 'orders-db allows 100 connections.', citations: [{ ...read, textFrom: 'record' }] },
        ]);
        // Nothing was kept for the old row: it reads the library as it is now, and says so.
        expect((await getRun(db, unrecorded.id))?.claims[0]?.citations).toEqual([
          { chunkId: ceiling.id, doc: ceiling.doc, heading: 'Pool ceiling', text: 'orders-db allows 250 connections.', textFrom: 'library' },
        ]);
      } finally {
        const restored = await loadCorpus(db, FIXTURE_DOCUMENTS, FIXTURE_CHUNKS, FIXTURE_ESTATE);
        expect(restored.corpusVersion).toBe(corpusVersion);
      }
      // A passage given must be the one cited, whole: a citation whose text was not given is refused, nothing written.
      const partial = await createRun(db, newRun());
      await expectStoreError(
        completeRun(db, partial.id, { terminal: 'emit', verdict: 'answered' }, [{ text: 'Waits climb.', citations: ['runbook-pool#symptoms'] }], [read]),
        'invalid_argument',
        /claim 0 cites "runbook-pool#symptoms", but no passage was given for it/,
      );
      expect((await getRun(db, partial.id))?.run.status).toBe('running');
    });
  });
}
