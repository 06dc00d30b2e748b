/**
 * What the website tells a person when the agent says no, or cannot be reached.
 * A closed union of codes with one remedy each (STYLE 8). Shared by server pages
 * and the console's client component, so it must never name the token variable
 * or the agent's address: the bundle test (T-12) greps the client bundle for them.
 */
import type { ApiErrorCode } from '@sandscope/api/errors';

/**
 * The codes the agent answers with are the shared contract's (issue 13, item 8):
 * a code added to @sandscope/api/errors fails this file's compile until it is
 * explained below. Imported as a type only — the API's own remedies may name
 * the token variable, which must not reach a client bundle; the wording here is
 * for the person at the website, not for an API client.
 */
export type ProblemCode = ApiErrorCode | WebProblemCode;

/**
 * Problems the website meets itself, with no agent answer to carry a code — and `already_approved`, the website's
 * reading of the agent's 409 `not_awaiting_approval` for a gated run that an earlier approval used up (lib/approvals.ts):
 * "Only a run that stopped at the approval gate can be approved" misled a person who had just approved it. And
 * `website_unreachable`, the enhanced console's own: its request to this website got no response at all (S-241).
 */
export type WebProblemCode = 'agent_unreachable' | 'agent_timeout' | 'bad_gateway' | 'stream_broken' | 'already_approved' | 'website_unreachable';

/** A problem as it crosses from the BFF to a page: the code, the agent's own words, and when to retry. */
export interface Problem {
  readonly code: ProblemCode;
  readonly status: number;
  /** The agent's message (it says what to do). Absent when the problem arose in the website itself. */
  readonly message?: string;
  /** What the website itself observed (a connection error, a bad URL), when the agent said nothing. */
  readonly detail?: string;
  readonly retryAfterSeconds?: number;
}

interface Explanation {
  readonly title: string;
  readonly remedy: string;
  /** `wait` for limits that pass, `operator` for configuration, `you` for a request to change. */
  readonly who: 'wait' | 'operator' | 'you';
}

const EXPLANATIONS: Record<ProblemCode, Explanation> = {
  agent_unreachable: {
    title: 'The agent service is not reachable',
    remedy:
      'The website is up but the agent behind it is not answering. Locally, start both with `npm start` (or the agent alone with `npx sandscope serve`); in a deployment, check the agent is running and that the website’s AGENT_URL points at it.',
    who: 'operator',
  },
  agent_timeout: {
    title: 'The agent took too long to answer',
    // A hung agent did later what it had been asked: "try again" made a second run, investigation or mark (a
    // colleague's test of the website, 2026-12-05). What timed out may still happen; look before repeating it.
    remedy:
      'The agent accepted the request but did not reply in time, so it may still carry it out: check the Runs or Investigations page before you try again, or it may be done twice. If it persists, check the agent’s logs and /healthz.',
    who: 'operator',
  },
  bad_gateway: {
    title: 'The agent replied with something the website does not understand',
    remedy: 'The website and the agent may be different versions. Redeploy them together; the contract is docs/API.md.',
    who: 'operator',
  },
  unauthorized: {
    title: 'The website is not authorised to call the agent',
    remedy:
      'The shared secret the website sends does not match the one the agent expects. Set the same agent token in both environments (apps/web/README.md) and restart the website.',
    who: 'operator',
  },
  rate_limited: {
    title: 'Rate limited — too many questions from this address',
    remedy: 'The agent limits how often one address may ask, so nobody can run up the bill. Wait and ask again.',
    who: 'wait',
  },
  daily_tokens_exhausted: {
    title: 'Today’s model allowance is spent',
    remedy: 'The daily token ceiling protects the budget. Questions work again when the allowance resets; reading runs, data and evaluation still works.',
    who: 'wait',
  },
  limiter_unavailable: {
    title: 'Refused: the rate limiter is down, so the agent fails closed',
    remedy:
      'The agent cannot reach the store its rate limiter uses, and refuses every question rather than allow unlimited spend. Operators: check the Redis server (REDIS_URL) or unset it to use the in-process limiter.',
    who: 'operator',
  },
  store_unavailable: {
    title: 'Refused: the agent cannot reach its database, so it fails closed',
    remedy:
      'No run is started while its record cannot be written. Ask again in a moment; operators: check the database (DATABASE_URL) — runs cut short by the outage are marked interrupted when it returns.',
    who: 'operator',
  },
  run_interrupted: {
    title: 'The run was interrupted: another agent instance took it over',
    remedy:
      'The agent that ran it lost its database connection, and another instance marked the run interrupted, so its answer was not kept. Ask again; operators: check the agent’s connection to the database (DATABASE_URL).',
    who: 'operator',
  },
  // S-258: the replica running the question was stopped (a restart or a deployment) before the run finished.
  shutting_down: {
    // S-269: an investigation turn is stopped the same way, and its page showed "The run was stopped".
    title: 'Stopped: the agent was shutting down',
    remedy:
      'The agent answering it was restarting or being redeployed, so it stopped the run or the turn and kept no answer (a question it stopped is kept, marked not answered). Ask again in a moment.',
    who: 'wait',
  },
  // S-212: a resumed turn whose process stopped mid-turn (no event, no answer for 10 minutes).
  interrupted: {
    title: 'The turn stopped without an answer',
    remedy: 'The agent process answering it stopped part-way. Your message is kept: ask it again.',
    who: 'you',
  },
  // S-212: the website sends only what the agent serves; either of these is a website and an agent of different versions.
  method_not_allowed: {
    title: 'The agent does not serve this request',
    remedy: 'The website and the agent may be different versions. Redeploy them together; the contract is docs/API.md.',
    who: 'operator',
  },
  unsupported_media_type: {
    title: 'The agent could not read what the website sent',
    remedy: 'The website and the agent may be different versions. Redeploy them together; the contract is docs/API.md.',
    who: 'operator',
  },
  budget_exceeded: {
    title: 'Over budget — the spend guard refused a model call',
    remedy:
      'This run reached its spend ceiling before a model call could be reserved. Ask a narrower question; operators can raise RUN_BUDGET_USD on the agent.',
    who: 'you',
  },
  invalid_request: {
    title: 'The question was not accepted',
    remedy: 'Type a question, pick a workload, and ask again.',
    who: 'you',
  },
  // The limit is the agent's and the website is not told it; the default is named, with the setting that changes it.
  question_too_long: {
    title: 'The question is too long',
    remedy:
      'The agent takes a question of at most 1,000 characters (its MAX_QUESTION_CHARS, unless the operator set another). Shorten it to the essentials: the service, the symptom, and what you need to know.',
    who: 'you',
  },
  payload_too_large: {
    title: 'The request is too large',
    remedy: 'Shorten the question and ask again.',
    who: 'you',
  },
  // Said of runs, investigations and their files alike: "No such run" headed a file upload the agent refused.
  not_found: {
    title: 'Not found',
    remedy: 'It may have been removed, or made against another database. The Runs and Investigations pages list what this agent knows.',
    who: 'you',
  },
  forbidden_session: {
    title: 'Only the session that asked can approve this run',
    remedy:
      'Approvals are bound to the browser session that requested the change (a cookie — not authentication). Approve from the browser that asked, or ask the change again here.',
    who: 'you',
  },
  not_awaiting_approval: {
    title: 'This run is not waiting for approval',
    remedy: 'Only a run that stopped at the approval gate can be approved, and a gated run is never resumed. Open the run to see how it ended.',
    who: 'you',
  },
  already_approved: {
    title: 'This run was already approved',
    remedy: 'A gated run is approved once, and its approval is a new run: open that run for the emitted answer. For a fresh result, ask the question again.',
    who: 'you',
  },
  internal: {
    title: 'The agent hit a bug',
    remedy: 'Nothing you did caused this. Try again; if it repeats, the agent’s logs have the details.',
    who: 'operator',
  },
  // S-241: the console's fetch of /api/runs rejected, no response at all (the site down, the connection gone). It was
  // said as stream_broken "· HTTP 502", a status nothing answered, "The question was not run" beside "the run record
  // may still be complete". Nothing answered, so the page cannot know more than that; the question is in the box.
  website_unreachable: {
    title: 'The website could not be reached',
    remedy:
      'Your browser got no answer from this website: it, or your connection, is down. Your question is still in the box: ask again once the website answers. If it went down while you were asking, look for the question on the Runs page first, or it may be run twice.',
    who: 'wait',
  },
  stream_broken: {
    title: 'The run’s stream ended before a result arrived',
    remedy: 'The connection to the agent dropped mid-run. The run record may still be complete: check the runs list, or ask again.',
    who: 'operator',
  },
};

const CODES = new Set(Object.keys(EXPLANATIONS));

export function isProblemCode(value: unknown): value is ProblemCode {
  return typeof value === 'string' && CODES.has(value);
}

export function explain(problem: Pick<Problem, 'code'>): Explanation {
  return EXPLANATIONS[problem.code];
}

/** A `{ error: Problem }` body from the BFF (app/api/runs/route.ts) as the console reads it, `status` its label's. */
export function problemFromBody(body: unknown, status: number): Problem {
  const e = (body as { error?: { code?: unknown; message?: unknown; detail?: unknown; retryAfterSeconds?: unknown } } | null)?.error;
  return {
    code: isProblemCode(e?.code) ? e.code : status === 429 ? 'rate_limited' : 'bad_gateway',
    status,
    ...(typeof e?.message === 'string' ? { message: e.message } : {}),
    ...(typeof e?.detail === 'string' ? { detail: e.detail } : {}),
    ...(typeof e?.retryAfterSeconds === 'number' ? { retryAfterSeconds: e.retryAfterSeconds } : {}),
  };
}

/**
 * A run's `event: error` as the enhanced console reads it: the Problem the BFF made of the agent's event
 * (lib/agent-problem.ts problemFromStreamError), with the status that Problem carries — the error vocabulary's for its
 * code. The stream itself was a 200, so there is no response status to fall back on: a Problem without one is shown
 * with none (status 0, no "HTTP" in the panel; the console says the run failed while streaming). S-207: the console
 * read every error event as `problemOf(data, 500)`, so a database outage (503) or a run another instance interrupted
 * (409) was labelled "HTTP 500", a status nothing had answered.
 */
export function problemFromStreamEvent(data: unknown): Problem {
  const status = (data as { error?: { status?: unknown } } | null)?.error?.status;
  return problemFromBody(data, typeof status === 'number' && Number.isInteger(status) && status >= 400 && status <= 599 ? status : 0);
}

/** "in 42 seconds" / "in about 3 minutes" / "in about 5 hours". */
export function retryPhrase(seconds: number | undefined): string | null {
  if (seconds === undefined || !Number.isFinite(seconds) || seconds < 0) return null;
  if (seconds < 90) {
    const whole = Math.max(1, Math.round(seconds));
    return `in ${whole} second${whole === 1 ? '' : 's'}`;
  }
  if (seconds < 90 * 60) return `in about ${Math.round(seconds / 60)} minutes`;
  return `in about ${Math.round(seconds / 3600)} hours`;
}

/**
 * A problem carried in a redirect's query string (the no-JavaScript path): the
 * code and the retry delay only. The agent's message is not echoed through a URL,
 * so a crafted link cannot put arbitrary words on the page.
 */
export function problemFromQuery(params: { error?: string | string[]; retryAfter?: string | string[] }): Problem | null {
  const code = Array.isArray(params.error) ? params.error[0] : params.error;
  if (!isProblemCode(code)) return null;
  const raw = Array.isArray(params.retryAfter) ? params.retryAfter[0] : params.retryAfter;
  const retry = raw !== undefined ? Number(raw) : undefined;
  return { code, status: 0, ...(retry !== undefined && Number.isFinite(retry) ? { retryAfterSeconds: retry } : {}) };
}

export function problemQuery(problem: Problem): string {
  const q = new URLSearchParams({ error: problem.code });
  if (problem.retryAfterSeconds !== undefined) q.set('retryAfter', String(problem.retryAfterSeconds));
  return q.toString();
}
