import { API_ERROR_CODES, API_ERRORS, remedyOf } from '@sandscope/api/errors';
import { describe, expect, it } from 'vitest';
import { messageForPage, problemFromResponse } from '../lib/agent-problem';
import { explain, isProblemCode, problemFromQuery, problemQuery, retryPhrase } from '../lib/problems';

/* The website's problem vocabulary (lib/problems.ts) and how an agent refusal becomes one (lib/agent-problem.ts). */

describe('the problem vocabulary', () => {
  it('explains every code the agent can answer with (the shared contract’s), for a person, without naming the token variable', () => {
    for (const code of API_ERROR_CODES) {
      expect(isProblemCode(code), code).toBe(true);
      const { title, remedy } = explain({ code });
      expect(title.length).toBeGreaterThan(0);
      expect(`${title} ${remedy}`).not.toMatch(/AGENT_TOKEN/);
    }
    expect(isProblemCode('agent_unreachable')).toBe(true);
    expect(isProblemCode('BUDGET_EXCEEDED')).toBe(false);
  });

  it('round-trips a problem through a redirect’s query: the code and the retry delay, never the agent’s words', () => {
    const query = problemQuery({ code: 'rate_limited', status: 429, message: 'words a link must not carry', retryAfterSeconds: 42 });
    expect(query).toBe('error=rate_limited&retryAfter=42');
    const params = Object.fromEntries(new URLSearchParams(query));
    expect(problemFromQuery(params)).toEqual({ code: 'rate_limited', status: 0, retryAfterSeconds: 42 });
    expect(problemFromQuery({ error: '<script>' })).toBeNull();
    expect(problemFromQuery({ error: ['not_found', 'internal'], retryAfter: 'soon' })).toEqual({ code: 'not_found', status: 0 });
  });

  it('names what was not found without calling it a run, and warns that a timed-out request may still be carried out', () => {
    // "No such run" headed a refused investigation file; "Try again" after a hung agent made a run twice.
    expect(explain({ code: 'not_found' }).title).toBe('Not found');
    expect(explain({ code: 'not_found' }).remedy).not.toMatch(/\brun\b/);
    expect(explain({ code: 'agent_timeout' }).remedy).toMatch(/may still carry it out: check the Runs or Investigations page before you try again/);
  });

  it('says when to retry in words', () => {
    expect(retryPhrase(undefined)).toBeNull();
    expect(retryPhrase(-1)).toBeNull();
    expect(retryPhrase(0.2)).toBe('in 1 second');
    expect(retryPhrase(42)).toBe('in 42 seconds');
    expect(retryPhrase(600)).toBe('in about 10 minutes');
    expect(retryPhrase(5 * 3600)).toBe('in about 5 hours');
  });
});

describe('problemFromResponse', () => {
  const answer = (status: number, body: unknown, headers: Record<string, string> = {}) =>
    new Response(typeof body === 'string' ? body : JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

  it('takes the code and message of a contract error body, and the Retry-After', async () => {
    const message = `Too many requests. ${API_ERRORS.rate_limited.remedy}`;
    expect(await problemFromResponse(answer(429, { error: { code: 'rate_limited', message } }, { 'retry-after': '30' }))).toEqual({
      code: 'rate_limited',
      status: 429,
      message: `Too many requests. ${remedyOf('rate_limited', 'web')}`,
      retryAfterSeconds: 30,
    });
  });

  // The page showed the agent's message whole: "… Fix what the message names; the request shapes are in docs/API.md."
  it('ends the agent’s message with the website’s remedy, not the API’s', async () => {
    const detail = 'question contains a NUL character (U+0000) at character 3; remove it.';
    const problem = await problemFromResponse(answer(400, { error: { code: 'invalid_request', message: `${detail} ${API_ERRORS.invalid_request.remedy}` } }));
    expect(problem.message).toBe(`${detail} ${remedyOf('invalid_request', 'web')}`);
    expect(problem.message).not.toContain('docs/API.md');
    for (const code of API_ERROR_CODES) {
      // A message that is the remedy alone (the agent had no detail to give) is the website's remedy alone.
      expect(messageForPage(code, API_ERRORS[code].remedy), code).toBe(remedyOf(code, 'web'));
      expect(messageForPage(code, `run 42 is gone. ${API_ERRORS[code].remedy}`), code).toBe(`run 42 is gone. ${remedyOf(code, 'web')}`);
    }
  });

  it('cuts a long detail, never the remedy; a message without the code’s API remedy is kept as it came', () => {
    const long = messageForPage('not_found', `${'x'.repeat(2000)} ${API_ERRORS.not_found.remedy}`);
    expect(long).toHaveLength(500);
    expect(long.endsWith(`… ${remedyOf('not_found', 'web')}`)).toBe(true);
    expect(messageForPage('invalid_request', 'workload must be one of triage, change, postmortem.')).toBe(
      'workload must be one of triage, change, postmortem.',
    );
  });

  it('a body the contract does not know keeps the status’s code and says so', async () => {
    expect(await problemFromResponse(answer(503, { error: { code: 'STORE_DOWN', message: 'x' } }))).toEqual({
      code: 'internal',
      status: 503,
      detail: 'The agent answered HTTP 503 with an error body the contract does not know.',
    });
    expect(await problemFromResponse(answer(401, 'not json'))).toMatchObject({
      code: 'unauthorized',
      detail: 'The agent answered HTTP 401 without a JSON error body.',
    });
  });

  it('cuts a long message to 500 characters', async () => {
    const problem = await problemFromResponse(answer(400, { error: { code: 'invalid_request', message: 'x'.repeat(2000) } }));
    expect(problem.message).toHaveLength(500);
  });
});
