import { round3 } from '../../round.ts';
import { passageNames } from '../../retrieval/question-shape.ts';
import type { NodeSpec } from '../node-context.ts';

const round = (n: number | null) => (n === null ? null : round3(n));

/** Most passages the workload's query may add as drafting context. */
export const MAX_CONTEXT_PASSAGES = 2;

/**
 * retrieve: hybrid search, twice when the workload builds a different query.
 *
 * The evidence gate reads only what the QUESTION retrieves. Its thresholds were
 * measured on question-vs-passage scores, and extra passages raise term
 * coverage and give adjudication more chances to find a carrier — so a query
 * padded with context words would move a measured gate, differently per
 * workload, with no measurement behind the move. (Seen while building this:
 * under the change query the DNS gap question stopped failing on term coverage
 * and was refused on score instead — the same verdict for a different reason,
 * one corpus edit away from a different verdict.) The workload's query decides
 * only what extra CONTEXT the draft may read: passages it alone found that name
 * every entity the question is about. run.test.ts pins the invariance: one
 * question, the same band and score under every workload.
 */
export const retrieve: NodeSpec = {
  id: 'retrieve',
  async run(state, { kb, workloads }) {
    const query = workloads[state.workload].queryBuilder(state.question, kb.estate);
    const asked = await kb.retrieve(state.question);
    if (query === state.question) return { query, retrieval: asked, context: [] };
    const built = await kb.retrieve(query);
    const seen = new Set(asked.results.map((r) => r.chunk.id));
    const entities = state.entities ?? [];
    const context = built.results
      .filter((r) => !seen.has(r.chunk.id) && entities.every((e) => passageNames(r.chunk, e)))
      .slice(0, MAX_CONTEXT_PASSAGES)
      .map((r) => r.chunk);
    return { query, retrieval: asked, context };
  },
  summarise: (update) => ({
    query: update.query,
    degraded: update.retrieval?.degraded ?? false,
    ...(update.retrieval?.degradedReason ? { degradedReason: update.retrieval.degradedReason } : {}),
    top: (update.retrieval?.results ?? []).map((x) => ({ chunkId: x.chunk.id, bm25: round(x.bm25), dense: round(x.dense), fused: round(x.fused) })),
    context: (update.context ?? []).map((c) => c.id),
  }),
};
