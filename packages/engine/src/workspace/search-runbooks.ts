import type { KnowledgeBase } from '../knowledge-base.ts';
import type { Band, RefusalClaim, Verdict } from '../types.ts';

export interface RunbookPassage {
  readonly chunkId: string;
  readonly doc: string;
  readonly heading: string;
  readonly text: string;
}

export interface SearchRunbooksResult {
  readonly query: string;
  /** The evidence gate's decision on the query — the same one `ask` takes (kb.examine). */
  readonly verdict: Verdict;
  readonly band: Band;
  readonly reasons: readonly string[];
  /** What a refusal claims (S-108); null when the library answers. */
  readonly refusal: RefusalClaim | null;
  /** The passages to answer from, the answering one first; empty when the library does not answer. */
  readonly passages: readonly RunbookPassage[];
}

/**
 * The runbook library through the same retrieval and the same answerability
 * decision as `ask` (the one decision: no mirror of the gate here). A refusal
 * is a result the agent reads — "the library does not answer this" — and
 * passes on as unknown, never an error.
 */
export async function searchRunbooks(kb: KnowledgeBase, query: string): Promise<SearchRunbooksResult> {
  const exam = await kb.examine(query);
  return {
    query,
    verdict: exam.verdict,
    band: exam.assessment.band,
    reasons: exam.reasons,
    refusal: exam.verdict === 'refused' ? (exam.refusal ?? 'unsure') : null,
    passages: exam.evidence.map((c) => ({ chunkId: c.id, doc: c.doc, heading: c.heading, text: c.text })),
  };
}
