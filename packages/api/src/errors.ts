import { ENGINE_ERROR_REMEDIES } from '@sandscope/engine/errors';
import { z } from 'zod';

/*
 * The one error vocabulary of the agent's API (docs/API.md; issue 13, item 8):
 * every code it answers with, its HTTP status and its one-line remedy. The
 * agent raises and renders them (apps/agent/src/http/api-error.ts); the website
 * parses error bodies with `apiErrorBodySchema` and keys its own wording by
 * `ApiErrorCode`, so a code added here is a compile error there until a person
 * can read it. The website words its own remedies because its readers are not
 * the API's: a remedy here may name AGENT_TOKEN, which must never reach a
 * client bundle (T-12) — so client code imports this file's types only.
 *
 * Codes that start in the engine take the engine's remedy: one sentence, one place.
 * The CLI prints the same codes with the remedy `remedyOf(code, 'cli')` gives (S-191), the website with `remedyOf(code, 'web')`.
 */
export const API_ERROR_CODES = [
  'invalid_request',
  'question_too_long',
  'unauthorized',
  'forbidden_session',
  'not_found',
  'method_not_allowed',
  'not_awaiting_approval',
  'payload_too_large',
  'unsupported_media_type',
  'rate_limited',
  'daily_tokens_exhausted',
  'limiter_unavailable',
  'store_unavailable',
  'run_interrupted',
  'interrupted',
  'shutting_down',
  'budget_exceeded',
  'internal',
] as const;

export type ApiErrorCode = (typeof API_ERROR_CODES)[number];

/** The statuses the API's errors use. */
export type ApiErrorStatus = 400 | 401 | 402 | 403 | 404 | 405 | 409 | 413 | 415 | 429 | 500 | 503;

export const API_ERRORS: Readonly<Record<ApiErrorCode, { readonly status: ApiErrorStatus; readonly remedy: string }>> = {
  invalid_request: { status: 400, remedy: 'Fix what the message names; the request shapes are in docs/API.md.' },
  question_too_long: { status: 400, remedy: 'Ask one specific, shorter question.' },
  unauthorized: { status: 401, remedy: 'Send Authorization: Bearer <AGENT_TOKEN>, the value the agent was started with.' },
  forbidden_session: { status: 403, remedy: 'Approve from the session (the sandscope_session cookie) that asked the question.' },
  not_found: { status: 404, remedy: 'Check the id or path; GET /v1/runs and GET /v1/investigations list what there is.' },
  // S-212: a method a path does not serve was a 404 "There is no route", as if the path did not exist, and said nothing of
  // the methods it does serve.
  method_not_allowed: { status: 405, remedy: 'Use a method the path serves: the Allow header lists them, and docs/API.md gives each route.' },
  not_awaiting_approval: { status: 409, remedy: ENGINE_ERROR_REMEDIES.not_awaiting_approval },
  payload_too_large: { status: 413, remedy: 'Send less: the message names the limit, and the setting that raises it for this deployment.' },
  // S-212: a JSON route read any body as JSON whatever its Content-Type said, so a form post (curl -d) was answered as if
  // it had been JSON, and a body in another charset was decoded as UTF-8.
  unsupported_media_type: { status: 415, remedy: 'Send Content-Type: application/json with a JSON body in UTF-8 (curl --json does; curl -d sends a form).' },
  rate_limited: { status: 429, remedy: 'Too many requests from this client; wait for the Retry-After interval and try again.' },
  daily_tokens_exhausted: { status: 429, remedy: "This client has used today's model-token allowance; it resets at 00:00 UTC (see Retry-After)." },
  limiter_unavailable: { status: 503, remedy: 'Rate limiter store is unreachable; requests are refused until it recovers (fail closed).' },
  store_unavailable: {
    status: 503,
    remedy:
      'The agent cannot reach its database, so runs are refused until it is back (fail closed); a run it cut short reads back as interrupted. Try again shortly; operators: check the Postgres server in DATABASE_URL and GET /healthz.',
  },
  run_interrupted: {
    status: 409,
    remedy:
      "This agent lost its run-ownership lease (its database connection dropped) and another agent instance marked the run interrupted, so its answer was not kept. Ask again; operators: check the agent's connection to DATABASE_URL.",
  },
  // S-212: a resumed turn stream sent `interrupted` in its `event: error`, a code outside this table, so a client that
  // parses error bodies with apiErrorBodySchema (the website does) could not read it. 409 as for `run_interrupted`: the
  // work was cut off by an agent process going away, and its answer was not kept.
  interrupted: {
    status: 409,
    remedy:
      'The turn stopped without an answer, most likely because the agent process that ran it ended mid-turn. The message that asked it is kept: ask again.',
  },
  // S-258: a replica stopping (SIGTERM, a deploy) cut its open runs' streams with no word, and the runs went on writing
  // to a store it had closed. A run still going when the grace ends is stopped, recorded interrupted and said so with
  // this; 503, as the replica is unavailable, not the request wrong — asked again, another replica answers it.
  shutting_down: {
    status: 503,
    remedy:
      'This agent replica is shutting down (a restart or a deployment): a run it has not finished is stopped and its answer not kept. Ask again: another replica, or this one once it is back, answers it.',
  },
  budget_exceeded: { status: 402, remedy: ENGINE_ERROR_REMEDIES.budget_exceeded },
  internal: { status: 500, remedy: 'An internal error in the agent; it is logged on the server. Try again, and report it if it repeats.' },
};

/** Who reads an error: a client of the HTTP API, a person at the `sandscope` command line, or a person on the website. */
export type ErrorSurface = 'api' | 'cli' | 'web';

/**
 * The command line's remedy where the API's names what only an HTTP client can do (a route, docs/API.md, a header,
 * the session cookie). S-191: the CLI printed the API's remedies, so `sandscope investigation new ""` was sent to
 * "the request shapes … in docs/API.md" and an unknown id to "GET /v1/investigations". The codes stay one vocabulary;
 * a code not here reads the same on both surfaces (errors-surface.test.ts holds the CLI's to no HTTP route).
 */
const CLI_REMEDIES: Readonly<Partial<Record<ApiErrorCode, string>>> = {
  invalid_request: 'Fix what the message names; `npx sandscope help` gives each command and its arguments.',
  not_found: 'Check the id; `npx sandscope investigation list` lists the investigations in this database (SANDSCOPE_DATA_DIR, or DATABASE_URL).',
  forbidden_session: 'Approve the run from the website, in the browser session that asked the question.',
  payload_too_large: 'Add less: the message names the limit, and the setting that raises it.',
  // S-270: a turn stopped at the command line (Ctrl-C) is no agent process that ended, as the API's remedy supposes.
  interrupted: 'Your question is kept in the conversation, marked not answered (`npx sandscope investigation show ID`): ask it again.',
};

/**
 * The website's remedy where the API's names what only an HTTP client (a route, docs/API.md, a header, the session
 * cookie) or a terminal can act on. The website showed the agent's message whole, so a question refused in a plain
 * form ended "Fix what the message names; the request shapes are in docs/API.md.", an approval from another browser
 * "Approve from the session (the sandscope_session cookie) that asked the question." — advice for an API client,
 * read by a person on a page (found by a black-box audit of the website without JavaScript). A code not here reads as
 * the API says it (errors-surface.test.ts holds every code's web remedy to no HTTP route and no command).
 */
const WEB_REMEDIES: Readonly<Partial<Record<ApiErrorCode, string>>> = {
  invalid_request: 'Fix what the message names, and send the form again.',
  unauthorized: 'The website and the agent hold different tokens: an operator must give both the same agent token, then restart the website.',
  forbidden_session: 'Approve from the browser that asked the question, or ask it again here and approve that run.',
  not_found: 'Check the link: it may have been removed, or made against another database. The Runs and Investigations pages list what there is.',
  not_awaiting_approval: 'Only a run that stopped for approval can be approved, and only once; ask the question again for a fresh result.',
  // The website sends only what the agent serves; a 405 or a 415 from it is a website and an agent of different versions.
  method_not_allowed:
    'The website asked the agent for something it does not serve: the two may be different versions, and an operator should deploy them together.',
  payload_too_large: 'Send less: the message names the limit, and the setting an operator can raise it with.',
  unsupported_media_type: 'The website sent the agent a body it does not read: the two may be different versions, and an operator should deploy them together.',
  rate_limited: 'Too many requests from this address; wait a little, then try again.',
  daily_tokens_exhausted: "This address has used today's model-token allowance; it resets at 00:00 UTC.",
  store_unavailable:
    'The agent cannot reach its database, so runs are refused until it is back (fail closed); a run it cut short reads back as interrupted. Try again shortly; operators: check the Postgres server in DATABASE_URL.',
};

const SURFACE_REMEDIES: Readonly<Record<Exclude<ErrorSurface, 'api'>, Readonly<Partial<Record<ApiErrorCode, string>>>>> = {
  cli: CLI_REMEDIES,
  web: WEB_REMEDIES,
};

/** A code's remedy as `surface` prints it: the caller says who reads it, so no surface copies another's remedy. */
export function remedyOf(code: ApiErrorCode, surface: ErrorSurface): string {
  return (surface === 'api' ? undefined : SURFACE_REMEDIES[surface][code]) ?? API_ERRORS[code].remedy;
}

export function isApiErrorCode(value: unknown): value is ApiErrorCode {
  return typeof value === 'string' && (API_ERROR_CODES as readonly string[]).includes(value);
}

/** The one error body: `{ error: { code, message } }` — the message is the detail followed by the code's remedy. */
export const apiErrorBodySchema = z.object({ error: z.object({ code: z.enum(API_ERROR_CODES), message: z.string() }) });

export type ApiErrorBody = z.infer<typeof apiErrorBodySchema>;
