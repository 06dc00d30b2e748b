import type { Claim } from '@sandscope/engine';
import { citationRows } from './citation-rows.ts';
import type { Database, Queryable } from './database.ts';
import { FOREIGN_KEY_VIOLATION, postgresError, StoreError } from './store-error.ts';
import { requireUuid } from './values.ts';

/**
 * A passage as the run read it and named it (the result's `sources`): kept with each citation of it, so the record
 * shows the same evidence whatever the library holds later (S-257).
 */
export interface CitedPassage {
  readonly chunkId: string;
  readonly doc: string;
  /** The heading the run named the passage by (its own, or the section a claim stood under, S-142). */
  readonly heading: string;
  readonly text: string;
}

/**
 * Where a citation's passage was read from: `record`, kept with the citation when the run was recorded; `library`,
 * the chunk table as it is now — a citation recorded before S-257 kept nothing, and the library may have changed
 * since the run read it.
 */
export type CitedTextFrom = 'record' | 'library';

export interface CitationRecord extends CitedPassage {
  readonly textFrom: CitedTextFrom;
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
 * `passages` are the passages as the run read them, kept with the citations
 * (S-257); without them nothing is kept, and the citations read as the library
 * holds their chunks now, said so (`textFrom: 'library'`).
 */
export async function saveClaims(db: Database, runId: string, claims: readonly Claim[], passages?: readonly CitedPassage[]): Promise<void> {
  requireUuid(runId, 'run id');
  claims.forEach((claim, index) => {
    if (claim.citations.length === 0) {
      throw new StoreError('claim_without_citation', `claim ${index} ("${claim.text.slice(0, 60)}") cites nothing; no claims were saved for run ${runId}`);
    }
  });
  const rows = citationRows(claims, passages, `no claims were saved for run ${runId}`);
  await db.transaction(async (tx) => {
    await tx.query('delete from citation where run_id = $1', [runId]);
    for (const row of rows) {
      try {
        await tx.query(
          `insert into citation (run_id, claim_index, claim_text, chunk_id, passage_doc, passage_heading, passage_text)
           values ($1, $2, $3, $4, $5, $6, $7)`,
          [runId, row.claim_index, row.claim_text, row.chunk_id, row.passage_doc, row.passage_heading, row.passage_text],
        );
      } catch (error) {
        const pg = postgresError(error);
        if (pg?.code === FOREIGN_KEY_VIOLATION && pg.constraint === 'citation_chunk_id_fkey') {
          throw new StoreError(
            'citation_chunk_missing',
            `claim ${row.claim_index} cites chunk "${row.chunk_id}", which does not exist in the corpus; no claims were saved for run ${runId}`,
            { cause: error },
          );
        }
        if (pg?.code === FOREIGN_KEY_VIOLATION && pg.constraint === 'citation_run_id_fkey') {
          throw new StoreError('run_not_found', `run ${runId} does not exist`, { cause: error });
        }
        throw error;
      }
    }
  });
}

/**
 * A run's claims grouped with their citations, in claim order. Each citation reads the passage kept with it (S-257):
 * the library may have been rewritten in place since — a replica starting on another corpus writes its passages over
 * the shared chunk table — and the record must show what the run read. A row recorded before kept none; it reads
 * the chunk table as it is now, marked `library`.
 */
export async function listClaims(db: Queryable, runId: string): Promise<ClaimRecord[]> {
  requireUuid(runId, 'run id');
  const rows = await db.query<{
    claim_index: number;
    claim_text: string;
    chunk_id: string;
    recorded: boolean;
    doc: string;
    heading: string;
    text: string;
  }>(
    `select x.claim_index, x.claim_text, x.chunk_id, x.passage_text is not null as recorded,
            coalesce(x.passage_doc, c.doc) as doc, coalesce(x.passage_heading, c.heading) as heading,
            coalesce(x.passage_text, c.text) as text
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
    claim.citations.push({ chunkId: r.chunk_id, doc: r.doc, heading: r.heading, text: r.text, textFrom: r.recorded ? 'record' : 'library' });
  }
  return claims;
}
