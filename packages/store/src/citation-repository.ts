import type { Claim } from '@sandscope/engine';
import type { Database, Queryable } from './database.ts';
import { FOREIGN_KEY_VIOLATION, postgresError, StoreError } from './store-error.ts';
import { requireUuid } from './values.ts';

export interface CitationRecord {
  readonly chunkId: string;
  readonly doc: string;
  readonly heading: string;
}

/** A claim as stored: its sentence and every passage cited for it, in citation order. */
export interface ClaimRecord {
  readonly index: number;
  readonly text: string;
  readonly citations: CitationRecord[];
}

/**
 * Stores a run's claims, one citation row per (claim, chunk), replacing any
 * claims saved for the run before — all in one transaction. A claim citing a
 * chunk that does not exist is refused by the foreign key and nothing of the
 * set is kept: a citation pointing at nothing is not evidence (seed §Six).
 */
export async function saveClaims(db: Database, runId: string, claims: readonly Claim[]): Promise<void> {
  requireUuid(runId, 'run id');
  claims.forEach((claim, index) => {
    if (claim.citations.length === 0) {
      throw new StoreError('claim_without_citation', `claim ${index} ("${claim.text.slice(0, 60)}") cites nothing; no claims were saved for run ${runId}`);
    }
  });
  await db.transaction(async (tx) => {
    await tx.query('delete from citation where run_id = $1', [runId]);
    for (const [index, claim] of claims.entries()) {
      for (const chunkId of new Set(claim.citations)) {
        try {
          await tx.query('insert into citation (run_id, claim_index, claim_text, chunk_id) values ($1, $2, $3, $4)', [runId, index, claim.text, chunkId]);
        } catch (error) {
          const pg = postgresError(error);
          if (pg?.code === FOREIGN_KEY_VIOLATION && pg.constraint === 'citation_chunk_id_fkey') {
            throw new StoreError(
              'citation_chunk_missing',
              `claim ${index} cites chunk "${chunkId}", which does not exist in the corpus; no claims were saved for run ${runId}`,
              { cause: error },
            );
          }
          if (pg?.code === FOREIGN_KEY_VIOLATION && pg.constraint === 'citation_run_id_fkey') {
            throw new StoreError('run_not_found', `run ${runId} does not exist`, { cause: error });
          }
          throw error;
        }
      }
    }
  });
}

/** A run's claims grouped with their citations, in claim order. */
export async function listClaims(db: Queryable, runId: string): Promise<ClaimRecord[]> {
  requireUuid(runId, 'run id');
  const rows = await db.query<{ claim_index: number; claim_text: string; chunk_id: string; doc: string; heading: string }>(
    `select x.claim_index, x.claim_text, x.chunk_id, c.doc, c.heading
     from citation x join chunk c on c.id = x.chunk_id
     where x.run_id = $1 order by x.claim_index, x.id`,
    [runId],
  );
  const claims: ClaimRecord[] = [];
  for (const r of rows) {
    let claim = claims.at(-1);
    if (!claim || claim.index !== r.claim_index) {
      claim = { index: r.claim_index, text: r.claim_text, citations: [] };
      claims.push(claim);
    }
    claim.citations.push({ chunkId: r.chunk_id, doc: r.doc, heading: r.heading });
  }
  return claims;
}
