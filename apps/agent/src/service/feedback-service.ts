import { type Database, type FeedbackLabel, type FeedbackMark, type FeedbackRecord, listFeedback, listSpans, markRun } from '@sandscope/store';
import { errorCodeOf } from '@sandscope/engine';
import { type CacheStore, scrubDeep, type SecretScrubber } from '@sandscope/engine/models';
import { isUuid } from '@sandscope/store/values';
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
 * for the next 7 days.
 */
export class FeedbackService {
  readonly #db: Database;
  readonly #scrub: SecretScrubber;
  readonly #cache: CacheStore | undefined;
  readonly #log: (line: string) => void;

  constructor(db: Database, options: { readonly scrub?: SecretScrubber; readonly cache?: CacheStore; readonly log?: (line: string) => void } = {}) {
    this.#db = db;
    this.#scrub = options.scrub ?? ((text) => text);
    this.#cache = options.cache;
    this.#log = options.log ?? (() => {});
  }

  /** Marks a run, replacing its previous mark (one per run). */
  async mark(runId: string, input: { readonly label: FeedbackLabel; readonly note?: string | null }): Promise<FeedbackRecord> {
    // Like GET /v1/runs/:id: an id that cannot be a run is a run that does not exist.
    if (!isUuid(runId)) throw new ServiceError('not_found', `run ${echoed(runId)} does not exist.`);
    let saved: FeedbackRecord;
    try {
      saved = await markRun(this.#db, { runId, label: input.label, note: input.note == null ? null : this.#scrub(input.note) });
    } catch (error) {
      // The store's refusals, told apart by code (issue 13, item 8); anything else is a bug.
      const code = errorCodeOf(error);
      if (code === 'run_not_found') throw new ServiceError('not_found', `run ${echoed(runId)} does not exist.`);
      if (code === 'run_without_verdict') {
        throw new ServiceError('invalid_request', `${(error as Error).message}: only a run that answered, answered partially or refused can be marked.`);
      }
      // A label the run's verdict contradicts (wrong-refusal on an answer, wrong-answer on a refusal; S-210).
      if (code === 'invalid_argument' || code === 'mark_contradicts_verdict') throw new ServiceError('invalid_request', `${(error as Error).message}.`);
      throw error;
    }
    if (saved.label === 'wrong-answer' && this.#cache) await evictAnswer(this.#db, this.#cache, runId, this.#log);
    return saved;
  }

  /** Every mark with its run's question, verdict and cited chunks, newest first. */
  async list(): Promise<FeedbackMark[]> {
    return scrubDeep(await listFeedback(this.#db), this.#scrub);
  }
}

/**
 * Deletes the cache entries a run's drafts were served from or stored under (the
 * `cacheKey` its hypothesise spans record); how many there were. The mark is
 * kept whatever happens here: a cache that cannot be reached is logged, and
 * marking the run again tries again.
 */
export async function evictAnswer(db: Database, cache: CacheStore, runId: string, log: (line: string) => void): Promise<number> {
  const keys = new Set((await listSpans(db, runId)).flatMap((span) => (typeof span.attributes['cacheKey'] === 'string' ? [span.attributes['cacheKey']] : [])));
  let evicted = 0;
  for (const key of keys) {
    try {
      if (await cache.delete(key)) evicted += 1;
    } catch (error) {
      log(
        `feedback: run ${runId} is marked wrong-answer, but its cached answer could not be evicted (${error instanceof Error ? error.message : String(error)}); mark it again once the cache is reachable`,
      );
    }
  }
  return evicted;
}
