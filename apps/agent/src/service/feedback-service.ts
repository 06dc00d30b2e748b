import type { CacheRemoval } from '@sandscope/api';
import {
  type Database,
  type EarlierMark,
  type FeedbackLabel,
  type FeedbackMark,
  type FeedbackRecord,
  listFeedback,
  listSpans,
  type MarkedRun,
  markRun,
} from '@sandscope/store';
import { type Chunk, errorCodeOf } from '@sandscope/engine';
import { type CacheStore, scrubDeep, type SecretScrubber } from '@sandscope/engine/models';
import { isUuid } from '@sandscope/store/values';
import { markEvidence } from './mark-evidence.ts';
import { echoed, ServiceError } from './service-error.ts';

/**
 * The write and read side of people's marks on runs (issue 9, part D), in the
 * API's vocabulary: the store's refusals become ServiceErrors here, once, so
 * the HTTP layer answers 404 for a run that is not there and 400 for a mark
 * that cannot be made — never a 500 for a person's mistake.
 *
 * A note is a person's free text, and people paste what they were looking at: configured secrets are scrubbed from
 * it before it is stored (T-18, as a question is), and from what the list reads back — a mark made before this was
 * stored as typed, and each mark carries its run's question.
 *
 * A `wrong-answer` mark also evicts the run's answer from the semantic cache (S-132): without that, a person who
 * marked an answer wrong watched it served again, from the cache every replica shares, to everyone who asked alike
 * for the next 7 days. Where the cache cannot be reached the answer stays in it, withdrawn all the same (the mark
 * writes the withdrawal, and no replica serves a withdrawn answer: S-263), and the mark's answer says so (S-264): it
 * answered 200 as if all was well, and the failure was a line in the server's log.
 *
 * A mark may name the passage that answers (`evidence`, S-286): its id, or a quotation matched to the one passage of
 * this agent's library that holds it (markEvidence), refused where it matches none or several. And it says which mark
 * it replaced (`replaced`, S-289): marking again replaced a colleague's mark without a word.
 */
export class FeedbackService {
  readonly #db: Database;
  readonly #scrub: SecretScrubber;
  readonly #cache: CacheStore | undefined;
  readonly #log: (line: string) => void;
  readonly #chunks: readonly Chunk[];

  constructor(
    db: Database,
    options: {
      readonly scrub?: SecretScrubber;
      readonly cache?: CacheStore;
      readonly log?: (line: string) => void;
      /** The passages of the library this agent answers from: what a mark's `evidence` is matched against. */
      readonly chunks?: readonly Chunk[];
    } = {},
  ) {
    this.#db = db;
    this.#scrub = options.scrub ?? ((text) => text);
    this.#cache = options.cache;
    this.#log = options.log ?? (() => {});
    this.#chunks = options.chunks ?? [];
  }

  /**
   * Marks a run, replacing its previous mark (one per run): the mark, the mark it replaced, and for a `wrong-answer`
   * mark what became of its cached answer.
   */
  async mark(runId: string, input: { readonly label: FeedbackLabel; readonly note?: string | null; readonly evidence?: string | null }): Promise<MarkOutcome> {
    // Like GET /v1/runs/:id: an id that cannot be a run is a run that does not exist.
    if (!isUuid(runId)) throw new ServiceError('not_found', `run ${echoed(runId)} does not exist.`);
    const evidence = markEvidence(input.evidence, this.#chunks);
    if ('problem' in evidence) {
      throw new ServiceError('invalid_request', `${evidence.problem}. Nothing was marked: name the passage by its id, or quote a sentence only it holds.`);
    }
    let saved: MarkedRun;
    try {
      saved = await markRun(this.#db, { runId, label: input.label, note: input.note == null ? null : this.#scrub(input.note), evidence: evidence.passage });
    } catch (error) {
      // The store's refusals, told apart by code (issue 13, item 8); anything else is a bug.
      const code = errorCodeOf(error);
      if (code === 'run_not_found') throw new ServiceError('not_found', `run ${echoed(runId)} does not exist.`);
      if (code === 'run_without_verdict') {
        throw new ServiceError('invalid_request', `${(error as Error).message}: only a run that answered, answered partially or refused can be marked.`);
      }
      // A label the run's verdict contradicts (wrong-refusal on an answer, wrong-answer on a refusal; S-210), and a right
      // mark naming a passage the run did not cite (S-286).
      if (code === 'invalid_argument' || code === 'mark_contradicts_verdict' || code === 'evidence_not_cited') {
        throw new ServiceError('invalid_request', `${(error as Error).message}.`);
      }
      throw error;
    }
    const { replaced, ...feedback } = saved;
    if (feedback.label !== 'wrong-answer' || !this.#cache) return { feedback, cache: null, replaced };
    const eviction = await evictAnswer(this.#db, this.#cache, runId);
    if (eviction.failure !== null) {
      this.#log(
        `feedback: run ${runId} is marked wrong-answer, but its cached answer could not be removed from the semantic cache (${eviction.failure}); it is withdrawn all the same, so no replica serves it`,
      );
    }
    return { feedback, cache: cacheRemovalOf(eviction), replaced };
  }

  /** Every mark with its run's question, verdict and cited chunks, newest first. */
  async list(): Promise<FeedbackMark[]> {
    return scrubDeep(await listFeedback(this.#db), this.#scrub);
  }
}

/**
 * A mark, what it did to the run's answer in the semantic cache (the contract's `cache`, docs/API.md: null for another
 * label, or a run none of whose drafts was cached), and the mark it replaced.
 */
export interface MarkOutcome {
  readonly feedback: FeedbackRecord;
  readonly cache: CacheRemoval | null;
  /** The mark this one replaced, as it was (S-289); null where the run had none. */
  readonly replaced: EarlierMark | null;
}

/** How an eviction went: how many cache keys the run's spans name, and the first failure's words (null: every key is out). */
export interface Eviction {
  readonly keys: number;
  readonly failure: string | null;
}

/**
 * Deletes the cache entries a run's drafts were served from or stored under (the `cacheKey` its hypothesise spans
 * record). The mark is kept whatever happens here, and it has already withdrawn those entries (markRun, S-263): one
 * the cache could not delete is not served, and is deleted where a replica next finds it.
 */
export async function evictAnswer(db: Database, cache: CacheStore, runId: string): Promise<Eviction> {
  const keys = new Set((await listSpans(db, runId)).flatMap((span) => (typeof span.attributes['cacheKey'] === 'string' ? [span.attributes['cacheKey']] : [])));
  let failure: string | null = null;
  for (const key of keys) {
    try {
      // False (nothing under the key: expired, or evicted before) is as good as removed.
      await cache.delete(key);
    } catch (error) {
      failure ??= error instanceof Error ? error.message : String(error);
    }
  }
  return { keys: keys.size, failure };
}

/**
 * The eviction in the person's words; null where there was nothing cached to remove. `where` names the cache and why it
 * failed, for a reader who runs it (the CLI); the API's words name neither (a Redis error can carry its address).
 */
export function cacheRemovalOf(eviction: Eviction, where?: string): CacheRemoval | null {
  if (eviction.keys === 0) return null;
  if (eviction.failure === null) return { removed: true, message: `Its answer is no longer served from the semantic cache${where ? ` (${where})` : ''}.` };
  return {
    removed: false,
    message:
      `The cached answer could not be removed now (${where ?? 'the semantic cache is unreachable or refused'}); the mark is kept, and the answer ` +
      'will not be served from the cache again: every replica checks a cached answer against the marks before serving it.',
  };
}
