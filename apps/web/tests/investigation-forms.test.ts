import { describe, expect, it } from 'vitest';
import {
  backWithProblem,
  citedRange,
  formFromQuery,
  INVESTIGATION_ID,
  inputRefusal,
  investigationHref,
  KEPT_MESSAGE_CHARS,
  seeOther,
} from '../lib/investigation-forms';

/* How the Investigations section's plain forms end (lib/investigation-forms.ts). */

describe('investigation forms', () => {
  it('goes back with the problem’s code and the form it came from, never the agent’s words', () => {
    const res = backWithProblem('/investigations/abc', { code: 'invalid_request', status: 400, message: 'words from the agent' }, 'upload', 'files');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/investigations/abc?error=invalid_request&during=upload#files');
  });

  it('keeps a refused message for its box, up to a bound, as the person typed it', () => {
    const long = `why ${'é&#'.repeat(600)}`;
    const res = backWithProblem('/investigations/abc', { code: 'invalid_request', status: 400 }, 'turn', 'ask', long);
    const url = new URL(res.headers.get('location')!, 'http://localhost');
    expect(url.searchParams.get('during')).toBe('turn');
    expect(url.searchParams.get('message')).toBe(long);
    expect(url.hash).toBe('#ask');
    const huge = backWithProblem('/investigations/abc', { code: 'invalid_request', status: 400 }, 'turn', 'ask', 'x'.repeat(KEPT_MESSAGE_CHARS + 50));
    expect(new URL(huge.headers.get('location')!, 'http://localhost').searchParams.get('message')).toHaveLength(KEPT_MESSAGE_CHARS);
  });

  it('relays every Set-Cookie on a 303', () => {
    const res = seeOther('/investigations', ['a=1; Path=/', 'b=2; Path=/']);
    expect(res.headers.getSetCookie()).toEqual(['a=1; Path=/', 'b=2; Path=/']);
  });

  it('reads `during` and a cited range only when they are well formed', () => {
    expect(formFromQuery('turn')).toBe('turn');
    expect(formFromQuery(['new', 'upload'])).toBe('new');
    expect(formFromQuery('destroy')).toBeNull();
    expect(citedRange('4312-4318')).toEqual({ start: 4312, end: 4318 });
    expect(citedRange('7')).toEqual({ start: 7, end: 7 });
    expect(citedRange('9-3')).toBeNull();
    expect(citedRange('0')).toBeNull();
    expect(citedRange('1-2-3')).toBeNull();
    expect(citedRange(undefined)).toBeNull();
  });

  it('words the input refusals per form, and leaves every other code to the problem panel', () => {
    expect(inputRefusal('upload', 'payload_too_large')).toMatch(/larger than the agent accepts/);
    expect(inputRefusal('new', 'invalid_request')).toMatch(/^The investigation was not created/);
    expect(inputRefusal('upload', 'invalid_request')).toMatch(/^The file was not added: only text files/);
    expect(inputRefusal('turn', 'invalid_request')).toMatch(/^Nothing was asked/);
    expect(inputRefusal('turn', 'rate_limited')).toBeNull();
  });

  it('forwards only ids that can name an investigation, encoded in links', () => {
    expect(INVESTIGATION_ID.test('inv_2024-05-01')).toBe(true);
    expect(INVESTIGATION_ID.test('../etc/passwd')).toBe(false);
    expect(investigationHref('a b')).toBe('/investigations/a%20b');
  });
});
