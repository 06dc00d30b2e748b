import { API_ERRORS, type ApiErrorCode } from '@sandscope/api/errors';

/**
 * What the run and investigation services refuse: expected outcomes of a
 * person's request — approving the wrong run, from the wrong session, a file
 * too large — not bugs. The codes are the API's and so are their remedies (one
 * table, @sandscope/api/errors; issue 13, item 8): this service once kept its
 * own, and an upload refused over HTTP was told "a question is a few hundred
 * characters of JSON". The HTTP boundary maps each code to its status; the CLI
 * prints the message.
 */
export type ServiceErrorCode = Extract<
  ApiErrorCode,
  | 'not_found'
  | 'not_awaiting_approval'
  | 'forbidden_session'
  | 'invalid_request'
  | 'question_too_long'
  | 'payload_too_large'
  | 'run_interrupted'
  // A turn stopped by the one who asked it (Ctrl-C at the command line): S-270.
  | 'interrupted'
>;

export class ServiceError extends Error {
  override readonly name = 'ServiceError';
  constructor(
    readonly code: ServiceErrorCode,
    /** What happened, without the remedy; `message` is this followed by the code's remedy. */
    readonly detail: string,
  ) {
    super(`${detail} ${API_ERRORS[code].remedy}`);
  }
}

/** The most of a request's own text (an id, a path, a header) a refusal quotes back, in characters (code points). */
export const MAX_ECHOED_CHARS = 80;

/**
 * `text` as a refusal quotes it back: whole up to MAX_ECHOED_CHARS characters, else its first ones and an ellipsis,
 * cut between characters (code points), never inside one. S-212: a run id of 5,000 characters was quoted whole, so the
 * message's 500-character cap (MAX_ERROR_DETAIL_CHARS) fell inside it: "run aaaa…" never said the run does not exist.
 */
export function echoed(text: string, max = MAX_ECHOED_CHARS): string {
  const chars = Array.from(text);
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : text;
}
