import { beforeAll, describe, expect, it } from 'vitest';
import { saveClaims } from './citation-repository.ts';
import { getRun } from './run-detail.ts';
import { createRun } from './run-repository.ts';
import type { Database } from './database.ts';
import { expectStoreError, rejection, type StoreContractContext } from './store-contract-context.ts';

/** The store contract's cases for citations: rows with a foreign key to the chunk they cite (store.contract.ts runs them on every backend). */
export function describeCitationContract(context: () => StoreContractContext): void {
  describe('citations', () => {
    let db: Database;
    let newRun: StoreContractContext['newRun'];
    beforeAll(() => {
      ({ db, newRun } = context());
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
  });
}
