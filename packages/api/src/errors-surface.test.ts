import { describe, expect, it } from 'vitest';
import { API_ERROR_CODES, API_ERRORS, remedyOf } from './errors.ts';

/** What only an HTTP client can act on: a route, the API's request shapes, a header or the session cookie. */
const HTTP_ONLY = /\b(GET|POST|PUT|PATCH|DELETE) \/|docs\/API\.md|Authorization|Retry-After|cookie/;

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
