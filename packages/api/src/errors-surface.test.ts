import { describe, expect, it } from 'vitest';
import { API_ERROR_CODES, API_ERRORS, remedyOf } from './errors.ts';

/**
 * What only an HTTP client can act on: a route, the API's request shapes, a header or the session cookie. S-212 added
 * the two headers a 405 and a 415 name (`Allow`, `Content-Type`): a person on a page can set neither.
 */
const HTTP_ONLY = /\b(GET|POST|PUT|PATCH|DELETE) \/|docs\/API\.md|Authorization|Retry-After|cookie|Content-Type|\bAllow header/;

/** What only a person at a terminal can act on: a command to run. */
const COMMAND_ONLY = /\bnpx\b|\bsandscope (help|investigation|serve|ask|eval)\b|`/;

/**
 * S-191: the CLI printed the API's remedies, so `sandscope investigation new ""` was sent to "the request shapes
 * in docs/API.md" and an unknown id to "GET /v1/investigations". One table of codes; the caller says who reads it.
 */
describe('remedyOf: one vocabulary, the remedy chosen by the surface that prints it', () => {
  it('keeps every API remedy as it was', () => {
    for (const code of API_ERROR_CODES) expect(remedyOf(code, 'api'), code).toBe(API_ERRORS[code].remedy);
  });

  it('tells a person at the command line what to run, never an HTTP route', () => {
    expect(remedyOf('not_found', 'cli')).toContain('sandscope investigation list');
    expect(remedyOf('invalid_request', 'cli')).toContain('sandscope help');
    for (const code of ['not_found', 'invalid_request', 'payload_too_large', 'forbidden_session'] as const) {
      expect(remedyOf(code, 'cli'), code).not.toMatch(HTTP_ONLY);
    }
  });

  it('falls back to the one remedy where it already suits a terminal', () => {
    expect(remedyOf('not_awaiting_approval', 'cli')).toBe(API_ERRORS.not_awaiting_approval.remedy);
    expect(remedyOf('budget_exceeded', 'cli')).toBe(API_ERRORS.budget_exceeded.remedy);
  });
});

/**
 * The website showed the agent's message whole, API remedy and all: a question refused in a plain form ended "Fix what
 * the message names; the request shapes are in docs/API.md.", a person on a page sent to an HTTP client's advice.
 */
describe('remedyOf: the website', () => {
  it('gives every code a remedy a person on the site can follow: no HTTP route, header or cookie, no command', () => {
    for (const code of API_ERROR_CODES) {
      expect(remedyOf(code, 'web'), code).not.toMatch(HTTP_ONLY);
      expect(remedyOf(code, 'web'), code).not.toMatch(COMMAND_ONLY);
      // The token's variable name is the website's secret (T-12): no remedy on its pages names it.
      expect(remedyOf(code, 'web'), code).not.toMatch(/AGENT_TOKEN/);
    }
  });

  it('has its own remedy where the API names a route, a header or docs/API.md', () => {
    for (const code of API_ERROR_CODES) {
      if (HTTP_ONLY.test(API_ERRORS[code].remedy)) expect(remedyOf(code, 'web'), code).not.toBe(API_ERRORS[code].remedy);
    }
    expect(remedyOf('invalid_request', 'web')).toMatch(/send the form again/);
    expect(remedyOf('not_found', 'web')).toMatch(/Runs and Investigations pages/);
  });
});
