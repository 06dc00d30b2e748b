import { type Database, type FeedbackLabel, type FeedbackMark, type FeedbackRecord, listFeedback, markRun } from '@sandscope/store';
import { errorCodeOf } from '@sandscope/engine';
import { scrubDeep, type SecretScrubber } from '@sandscope/engine/models';
import { isUuid } from '@sandscope/store/values';
import { ServiceError } from './service-error.ts';

/**
 * The write and read side of people's marks on runs (issue 9, part D), in the
 * API's vocabulary: the store's refusals become ServiceErrors here, once, so
 * the HTTP layer answers 404 for a run that is not there and 400 for a mark
 * that cannot be made — never a 500 for a person's mistake.
 *
 * A note is a person's free text, and people paste what they were looking at: configured secrets are scrubbed from
 * it before it is stored (T-18, as a question is), and from what the list reads back — a mark made before this was
 * stored as typed, and each mark carries its run's question.
 */
export class FeedbackService {
  readonly #db: Database;
  readonly #scrub: SecretScrubber;

  constructor(db: Database, scrub: SecretScrubber = (text) => text) {
    this.#db = db;
    this.#scrub = scrub;
  }

  /** Marks a run, replacing its previous mark (one per run). */
  async mark(runId: string, input: { readonly label: FeedbackLabel; readonly note?: string | null }): Promise<FeedbackRecord> {
    // Like GET /v1/runs/:id: an id that cannot be a run is a run that does not exist.
    if (!isUuid(runId)) throw new ServiceError('not_found', `run ${runId} does not exist.`);
    try {
      return await markRun(this.#db, { runId, label: input.label, note: input.note == null ? null : this.#scrub(input.note) });
    } catch (error) {
      // The store's refusals, told apart by code (issue 13, item 8); anything else is a bug.
      const code = errorCodeOf(error);
      if (code === 'run_not_found') throw new ServiceError('not_found', `run ${runId} does not exist.`);
      if (code === 'run_without_verdict') {
        throw new ServiceError('invalid_request', `${(error as Error).message}: only a run that answered, answered partially or refused can be marked.`);
      }
      if (code === 'invalid_argument') throw new ServiceError('invalid_request', `${(error as Error).message}.`);
      throw error;
    }
  }

  /** Every mark with its run's question, verdict and cited chunks, newest first. */
  async list(): Promise<FeedbackMark[]> {
    return scrubDeep(await listFeedback(this.#db), this.#scrub);
  }
}
