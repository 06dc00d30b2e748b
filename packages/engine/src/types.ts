/**
 * The engine's shared vocabulary. Every other package speaks in these terms.
 * Names follow the seed: band, verdict, adjudicate, terminal, reserve, settle.
 */

/** A markdown document as read from a corpus folder (the reading itself is I/O and lives in apps). */
export interface SourceDocument {
  /** File name relative to the corpus docs folder, e.g. `runbook-connection-pool-exhaustion.md`. */
  readonly doc: string;
  readonly title: string;
  readonly text: string;
}

/** A passage: one heading and its body, the unit of retrieval and of citation. */
export interface Chunk {
  /** Stable, readable id: `<doc-without-.md>#<heading-slug>`. */
  readonly id: string;
  readonly doc: string;
  readonly docTitle: string;
  readonly heading: string;
  /**
   * Headings the passage stands under, outermost first (the document title aside).
   * A "How to investigate" section is about the alert heading above it; without
   * this context every alert's "How to investigate" looked alike.
   */
  readonly path?: readonly string[];
  /** The heading's depth (1 for `#`): a merged `###` under a `##` passage is its child, a `##` its sibling. */
  readonly level?: number;
  readonly text: string;
}

/** Where the gate places a question's evidence. */
export type Band = 'insufficient' | 'ambiguous' | 'sufficient';

/**
 * The evidence gate's decision: does the library answer this? `partial` is an
 * ambiguous band let through by adjudication, flagged. A run can still stop
 * short of answering after the gate (escalate, await_approval): what a person
 * is told is the run's outcome (orchestrator/outcome.ts), read from both.
 */
export type Verdict = 'answered' | 'partial' | 'refused';

/**
 * What a refusal claims (S-108). "Refused — the library does not answer this" headed every refusal, also the two in
 * three offline where the model is unsure and its reasons say to read the closest passage: most of those questions are
 * answerable (docs/EVALUATION.md counts them), so the headline said the opposite of what the gate knew.
 * - `absent`: the library does not answer this — nothing matched, or a reader read the passages and found none answers
 *   (S-222: a rating below the adjudicated lower line claimed it too, and was wrong for one such refusal in eight on
 *   libraries the model was not trained on; so was a question none of whose words the library uses, 3 times in 5);
 * - `unsure`: the model cannot tell, and nobody read the passages for it (the ambiguous band, or the insufficient band:
 *   near the line it is unsure, further below it rates no passage likely, and neither is a claim of absence);
 * - `conflict`: the library disagrees with itself;
 * - `unread`: the question has words the index cannot read (another script, an accented letter), so no rating of it
 *   stands (S-109);
 * - `unasked`: the question names nothing to look for: no word at all ("???!!!"), or only words that say what kind of
 *   question it is ("what is it?", "on call couldnt fix it, now what"), so no passage can be rated against it and
 *   nothing is claimed about the library (S-161).
 */
export type RefusalClaim = 'absent' | 'unsure' | 'conflict' | 'unread' | 'unasked';

/** A retrieved passage with its raw (unnormalised) and fused scores. */
export interface ScoredChunk {
  readonly chunk: Chunk;
  /** Unnormalised BM25 score. */
  readonly bm25: number;
  /** Unnormalised cosine similarity, or null when the embedder is unavailable (degraded). */
  readonly dense: number | null;
  /** Normalised, weighted fusion used only for ranking — never for the gate (seed §Two). */
  readonly fused: number;
}

export interface Claim {
  readonly text: string;
  /** Chunk ids. A claim with no citation is not evidence and is never emitted. */
  readonly citations: readonly string[];
}

export type { Workload } from './orchestrator/workload-id.ts';

export type Terminal = 'refuse' | 'escalate' | 'await_approval' | 'emit';
