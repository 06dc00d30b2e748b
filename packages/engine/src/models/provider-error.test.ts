import { APICallError } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { describeProviderError, excerptOf, MAX_PROVIDER_EXCERPT_CHARS, providerConfigurationHint, withProviderHint } from './provider-error.ts';
import { createSecretScrubber } from './secret-scrubber.ts';

const apiError = (statusCode: number | undefined, message: string, data?: unknown) =>
  new APICallError({
    message,
    url: 'https://provider.invalid/v1/chat/completions',
    requestBodyValues: {},
    ...(statusCode !== undefined ? { statusCode } : {}),
    ...(data ? { data } : {}),
  });

/** Issue 12, defect 3: a provider failure is a status, a class and a redacted, capped excerpt — never the provider's raw text. */
describe('describeProviderError', () => {
  it('names the status and the class from a fixed vocabulary', () => {
    const cases: [unknown, string][] = [
      [apiError(401, 'bad key'), 'HTTP 401 authentication: "bad key"'],
      [apiError(403, 'nope'), 'HTTP 403 authentication: "nope"'],
      [apiError(404, 'no such model'), 'HTTP 404 not_found: "no such model"'],
      [apiError(422, 'bad'), 'HTTP 422 bad_request: "bad"'],
      [apiError(503, 'overloaded'), 'HTTP 503 server_error: "overloaded"'],
      [
        apiError(undefined, 'No response within 200 ms from provider.invalid', { reason: 'timeout' }),
        'timeout: "No response within 200 ms from provider.invalid"',
      ],
      [apiError(undefined, 'Cannot connect to API: connect ECONNREFUSED'), 'network: "Cannot connect to API: connect ECONNREFUSED"'],
      [Object.assign(new Error('JSON parsing failed: Text: <html>'), { name: 'AI_JSONParseError' }), 'invalid_response: "JSON parsing failed: Text: <html>"'],
      [new Error(''), 'unknown: "Error"'],
      ['a string', 'unknown: "a string"'],
    ];
    for (const [error, message] of cases) expect(describeProviderError(error).message).toBe(message);
    expect(describeProviderError(apiError(401, 'x'))).toMatchObject({ status: 401, errorClass: 'authentication', excerpt: 'x' });
  });

  it('scrubs configured secrets, then key-shaped text, from the excerpt', () => {
    const scrub = createSecretScrubber(['correct horse battery staple']);
    const said = describeProviderError(apiError(401, 'salt correct horse battery staple; key sk-proj-abcdefghijklmnop1234'), scrub);
    expect(said.message).toBe('HTTP 401 authentication: "salt [redacted]; key [redacted]"');
  });

  it('redacts key shapes it was never told about', () => {
    const shapes: [string, string][] = [
      ['Incorrect API key provided: gsk_abcdefgh12345678', 'Incorrect API key provided: [redacted]'],
      ['header Authorization: Bearer abc.def-123', 'header Authorization: Bearer [redacted]'],
      ['GET /v1?key=AIzaSyA-1234567890abcdefghijklmnopqrs&alt=json', 'GET /v1?key=[redacted]&alt=json'],
      ['{"api_key": "plain-secret"}', '{"api_key": "[redacted]"}'],
      ['redis://default:hunter2pass@cache:6379', 'redis://[redacted]@cache:6379'],
      ['token 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08', 'token [redacted]'],
      ['csk-abcdefgh12345678 and AIzaSyA-1234567890abcdefghijklmnopqrs', '[redacted] and [redacted]'],
    ];
    for (const [text, expected] of shapes)
      expect(
        excerptOf(text, (t) => t),
        text,
      ).toBe(expected);
    // Ordinary provider prose passes: numbers, model names, hosts.
    expect(excerptOf('The model llama-3.1-8b-instant is overloaded; retry in 20 s (api.groq.com:443).', (t) => t)).toBe(
      'The model llama-3.1-8b-instant is overloaded; retry in 20 s (api.groq.com:443).',
    );
  });

  it('strips control characters and caps the excerpt', () => {
    expect(excerptOf('line one\n\u0000\u001b[31mline two\r\n', (t) => t)).toBe('line one [31mline two');
    const long = excerptOf('word '.repeat(1000), (t) => t);
    expect([...long].length).toBe(MAX_PROVIDER_EXCERPT_CHARS);
    expect(long.endsWith('…')).toBe(true);
  });
});

/** S-262: what to check in the settings, beside the failure; a provider's HTTP is in providers.int.test.ts. */
describe('providerConfigurationHint', () => {
  const groq = (baseURL: string) => ({ name: 'groq', baseURL, baseUrlVariable: 'GROQ_BASE_URL' });

  it('hints only where the settings are the likely cause', () => {
    for (const root of ['https://api.groq.com/openai/v1', 'https://generativelanguage.googleapis.com/v1beta/openai', 'https://openrouter.ai/api/v1'])
      expect(providerConfigurationHint(groq(root), 404), root).toBeUndefined();
    for (const status of [401, 500, undefined]) expect(providerConfigurationHint(groq('http://127.0.0.1:8080'), status)).toBeUndefined();
  });

  it('never shows a password or a query a base URL carries, and the hint passes the excerpt’s redaction', () => {
    const hint = providerConfigurationHint(groq('https://user:hunter2@proxy.example/openai?key=abc'), 404);
    expect(hint).toBe(
      'is GROQ_BASE_URL missing /v1? Calls went to https://proxy.example/openai/chat/completions (it is used as given; only OLLAMA_BASE_URL has /v1 added)',
    );
    const error = withProviderHint(apiError(404, 'not found'), 'check it: sk-proj-abcdefghijklmnop1234 and correct horse battery staple');
    expect(describeProviderError(error, createSecretScrubber(['correct horse battery staple'])).message).toBe(
      'HTTP 404 not_found: "not found"; check it: [redacted] and [redacted]',
    );
  });
});
