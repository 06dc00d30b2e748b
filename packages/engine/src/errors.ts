/*
 * The engine's error vocabulary (issue 13, item 8). Codes are lower_snake, like
 * the store's, the limiter's and the API's: the engine's were SHOUTING, so one
 * failure had two spellings depending on the layer that printed it. Callers tell
 * errors apart by `code`, through `hasErrorCode`, not by a chain of instanceof
 * checks that breaks when a second copy of a class is loaded or an error is
 * wrapped. The API's table (@sandscope/api/errors) takes the remedies of the
 * codes that reach it from here, so a remedy is written once. This file imports
 * nothing: the API contract, and through it the website, read it without
 * loading the engine (has-error-code.ts holds the typed check).
 */

export type EngineErrorCode = 'all_providers_failed' | 'budget_exceeded' | 'invalid_budget' | 'not_awaiting_approval' | 'spend_ledger_unavailable';

/** One line each: what a person can do about it (STYLE 8). */
export const ENGINE_ERROR_REMEDIES: Readonly<Record<EngineErrorCode, string>> = {
  all_providers_failed: 'Check provider keys and status, or wait for rate-limit cooldowns to expire; the offline model should always be the last candidate.',
  budget_exceeded: 'Ask a narrower question, or raise RUN_BUDGET_USD (or RUN_TOKEN_BUDGET, when the message names it) for this deployment.',
  invalid_budget: 'Set RUN_BUDGET_USD to a positive number of US dollars, or unset it for the default.',
  not_awaiting_approval: 'Only a completed run whose terminal is await_approval can be approved, once; ask the question again for a fresh result.',
  spend_ledger_unavailable: 'Retry shortly; if it persists, check that the Redis (REDIS_URL) or database (DATABASE_URL) the replicas share is reachable.',
};

/**
 * S-276: the codes a run records on a failed model call (`attempts[].error.code` of its result) rather than fail with:
 * the run escalates and the request answers 200. docs/API.md said a run got `503 store_unavailable` with the spend
 * ledger down, when it got this `spend_ledger_unavailable`; its table of them is held to this list
 * (apps/agent/src/http/api-doc-codes.test.ts), and hypothesise records exactly these.
 */
export const ATTEMPT_ERROR_CODES = ['budget_exceeded', 'all_providers_failed', 'spend_ledger_unavailable'] as const satisfies readonly EngineErrorCode[];

/** The `code` of an Error that carries a string one (ours, the store's, the limiter's); undefined for anything else. */
export function errorCodeOf(error: unknown): string | undefined {
  if (!(error instanceof Error)) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}
