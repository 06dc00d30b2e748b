/** Internal to the store (not re-exported by index.ts): the citation rows saveClaims and completeRun write, one shape for both. */
import type { Claim } from '@sandscope/engine';
import type { CitedPassage } from './citation-repository.ts';
import { StoreError } from './store-error.ts';

/** One citation row to write: a claim, a chunk it cites, and the passage as the run read it (null: none was given). */
export interface CitationRow {
  readonly claim_index: number;
  readonly claim_text: string;
  readonly chunk_id: string;
  readonly passage_doc: string | null;
  readonly passage_heading: string | null;
  readonly passage_text: string | null;
}

/**
 * A claim set as citation rows, one per (claim, cited chunk). With `passages`, every cited chunk must have one — a
 * citation whose text the caller did not give would be read from whatever the library holds later, which is the
 * defect S-257 closed — and it is refused before anything is written. Without them, the rows record no passage.
 */
export function citationRows(
  claims: readonly Pick<Claim, 'text' | 'citations'>[],
  passages: readonly CitedPassage[] | undefined,
  refused: string,
): CitationRow[] {
  const byChunk = new Map(passages?.map((p) => [p.chunkId, p]));
  return claims.flatMap((claim, index) =>
    [...new Set(claim.citations)].map((chunkId) => {
      const passage = byChunk.get(chunkId);
      if (passages && !passage) {
        throw new StoreError('invalid_argument', `claim ${index} cites "${chunkId}", but no passage was given for it; ${refused}`);
      }
      return {
        claim_index: index,
        claim_text: claim.text,
        chunk_id: chunkId,
        passage_doc: passage?.doc ?? null,
        passage_heading: passage?.heading ?? null,
        passage_text: passage?.text ?? null,
      };
    }),
  );
}
