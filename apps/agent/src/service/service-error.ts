/**
 * What the run service refuses, as a closed union with a remedy each (STYLE 8).
 * These are expected outcomes of a person's request — approving the wrong run,
 * from the wrong session — not bugs; the HTTP boundary maps each code to its
 * status (docs/API.md) and everything else to `internal`.
 */
export type ServiceErrorCode = 'not_found' | 'not_awaiting_approval' | 'forbidden_session' | 'invalid_request' | 'payload_too_large';

export const SERVICE_ERROR_REMEDIES: Readonly<Record<ServiceErrorCode, string>> = {
  not_found: 'Check the run id; GET /v1/runs lists the runs there are.',
  not_awaiting_approval:
    'Only a completed run whose terminal is await_approval can be approved, and only once; ask the question again for a fresh result.',
  forbidden_session: 'Approve from the session (the sandscope_session cookie) that asked the question.',
  invalid_request: 'Fix what the message names; the request shapes are in docs/API.md.',
  payload_too_large: 'Send a smaller file, or raise INVESTIGATION_FILE_MAX_BYTES for this deployment.',
};

export class ServiceError extends Error {
  override readonly name = 'ServiceError';
  constructor(
    readonly code: ServiceErrorCode,
    /** What happened, without the remedy; `message` is this followed by the code's remedy. */
    readonly detail: string,
  ) {
    super(`${detail} ${SERVICE_ERROR_REMEDIES[code]}`);
  }
}
