import { APICallError } from '@ai-sdk/provider';
import { REDACTED, type SecretScrubber } from './secret-scrubber.ts';

/**
 * What kind of failure a provider call was: a closed vocabulary (STYLE 8), so
 * a provider's own words are never what a reader has to go on.
 */
export type ProviderErrorClass =
  | 'authentication'
  | 'rate_limited'
  | 'bad_request'
  | 'not_found'
  | 'server_error'
  | 'timeout'
  | 'network'
  | 'invalid_response'
  /** A 2xx reply longer than its max_tokens allows, not read past that (S-266, reply-limit-fetch.ts). */
  | 'reply_too_large'
  | 'unknown';

/** The longest excerpt of a provider's own message that is kept, in characters. */
export const MAX_PROVIDER_EXCERPT_CHARS = 160;

/** A provider failure as it may be recorded and shown: the allowlisted fields and one excerpt. */
export interface ProviderErrorReport {
  readonly status?: number;
  readonly errorClass: ProviderErrorClass;
  /** The provider's message, scrubbed, redacted and capped; absent when nothing is left. */
  readonly excerpt?: string;
  /**
   * What to check in this deployment's settings, where they are the likely cause (S-262): `is GROQ_BASE_URL missing
   * /v1?` beside a 404 from an API root without it. Redacted as the excerpt is; absent when nothing points there.
   */
  readonly hint?: string;
  /** `HTTP 401 authentication: "Incorrect API key provided: [redacted]"` — what the trace stores, then the hint. */
  readonly message: string;
}

/** Hints attached to provider errors by the model that threw them (`withProviderHint`), read by describeProviderError. */
const hints = new WeakMap<object, string>();

/**
 * Attaches to a provider's error what a person should check (`providerConfigurationHint`), for describeProviderError.
 * The error itself is left as it is — its status, headers and body are what the router and the spend guard read.
 */
export function withProviderHint<E>(error: E, hint: string | undefined): E {
  if (hint && typeof error === 'object' && error !== null) hints.set(error, hint);
  return error;
}

/** The provider as configured, for providerConfigurationHint. */
export interface ConfiguredProvider {
  readonly name: string;
  /** The API root calls are made under (`<baseURL>/chat/completions`), after any rewriting (Ollama's /v1). */
  readonly baseURL: string;
  /** The variable the deployment set it in, as the agent's config names it; absent, the hint says "the base URL". */
  readonly baseUrlVariable?: string;
}

/** An API root's path as OpenAI-compatible APIs end it: /v1, /openai/v1, Gemini's /v1beta/openai. */
const VERSIONED_ROOT = /\/v\d+[a-z0-9]*(\/openai)?$/i;

/**
 * S-262: what a failure says about the deployment's settings. A base URL missing /v1 (`http://host:port`) or naming the
 * endpoint (`…/v1/chat/completions`) is answered 404; the run fell back to the offline model and only `--trace` said
 * `HTTP 404 not_found`, with nothing to say which variable was wrong. Only Ollama's bare server
 * address has /v1 added (providers.ts, as people paste it from Ollama's docs); every other base URL is used as given,
 * and the hint says so rather than rewriting it. The variable is the one the agent's config names (`baseUrlVariable`).
 */
export function providerConfigurationHint(provider: ConfiguredProvider, status: number | undefined): string | undefined {
  if (status !== 404) return undefined;
  let url: URL;
  try {
    url = new URL(provider.baseURL);
  } catch {
    return undefined;
  }
  const path = url.pathname.replace(/\/+$/, '');
  const shown = (p: string) => `${url.protocol}//${url.host}${p}`;
  const variable = provider.baseUrlVariable ?? 'the base URL';
  if (/\/chat\/completions$/i.test(path))
    return `${variable} names the endpoint: set the base URL, not the endpoint (${shown(path.replace(/\/chat\/completions$/i, ''))})`;
  if (VERSIONED_ROOT.test(path)) return undefined;
  const asGiven =
    provider.name === 'ollama'
      ? '/v1 is added only to a bare server address, such as http://127.0.0.1:11434'
      : 'it is used as given; only OLLAMA_BASE_URL has /v1 added';
  return `is ${variable} missing /v1? Calls went to ${shown(`${path}/chat/completions`)} (${asGiven})`;
}

/**
 * Key-shaped text, redacted even when it is not one of this deployment's
 * secrets (a provider echoing a key it was never sent, a signed URL). Provider
 * excerpts only: applied to answers it would eat passage ids and numbers.
 */
const KEY_SHAPES: readonly [RegExp, string][] = [
  // user:password@ in a URL
  [/(\/\/)[^/\s:@]+:[^/\s@]+@/g, `$1${REDACTED}@`],
  // Authorization: Bearer …, Basic …
  [/\b(Bearer|Basic)\s+[^\s"',;]+/gi, `$1 ${REDACTED}`],
  // key=…, api_key: "…", token=…, secret=…, password=… (query strings, JSON, prose)
  // (the value only when it is not already a scheme and a redaction from the rule above)
  [
    /\b((?:api[_-]?)?key|token|access[_-]?token|secret|password|authorization)(["']?\s*[:=]\s*["']?)(?!Bearer\b|Basic\b|\[redacted\])[^\s"'&,;}]+/gi,
    `$1$2${REDACTED}`,
  ],
  // Known key prefixes: OpenAI/OpenRouter sk-, Groq gsk_, Cerebras csk-, Google AIza…
  [/\b(?:sk|gsk|csk|pk|rk)[-_][A-Za-z0-9_\-*.]{8,}/g, REDACTED],
  [/\bAIza[0-9A-Za-z_-]{20,}/g, REDACTED],
  // Any long opaque run of letters and digits (a key, a token, a signature).
  [/\b(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9_-]{32,}/g, REDACTED],
];

/**
 * Issue 12, defect 3: the router used to record `error.message` as the provider
 * sent it, so a provider that echoed the API key in its error body put the key
 * in `provider_event`, the stream, the run page and — through the
 * all-providers-failed message — the attempt and the verifier's reasons.
 *
 * Now a failure is reported in a fixed vocabulary (the HTTP status and an error
 * class) plus an excerpt of the provider's message that has passed, in order:
 * the deployment's configured secrets (`scrub`), the key-shaped patterns above,
 * control characters removed, and a length cap. Nothing else of the error —
 * its body, headers, URL or cause chain — is kept.
 */
export function describeProviderError(thrown: unknown, scrub: SecretScrubber = (text) => text): ProviderErrorReport {
  // S-266: a stream cut for its size reaches here wrapped by the client ("Failed to process successful response", HTTP
  // 200); the cut, not the wrapper, is what happened.
  const error = replyTooLargeIn(thrown) ?? thrown;
  const status = APICallError.isInstance(error) ? error.statusCode : undefined;
  const errorClass = classify(error, status);
  const excerpt = excerptOf(rawMessage(error), scrub);
  const attached = typeof error === 'object' && error !== null ? hints.get(error) : undefined;
  // Not capped with the excerpt: a provider's 404 page can fill the cap, and the hint is what a person acts on.
  const hint = attached ? redacted(attached, scrub) : undefined;
  const head = `${status !== undefined ? `HTTP ${status} ` : ''}${errorClass}`;
  return {
    ...(status !== undefined ? { status } : {}),
    errorClass,
    ...(excerpt ? { excerpt } : {}),
    ...(hint ? { hint } : {}),
    message: `${excerpt ? `${head}: ${JSON.stringify(excerpt)}` : head}${hint ? `; ${hint}` : ''}`,
  };
}

/** The excerpt rules on their own: scrub, redact key shapes, strip control characters, cap. */
export function excerptOf(text: string, scrub: SecretScrubber): string {
  const out = redacted(text, scrub);
  const chars = [...out];
  return chars.length > MAX_PROVIDER_EXCERPT_CHARS ? `${chars.slice(0, MAX_PROVIDER_EXCERPT_CHARS - 1).join('')}…` : out;
}

/** Scrubbed, key shapes redacted, control characters stripped: the excerpt before its cap. */
function redacted(text: string, scrub: SecretScrubber): string {
  let out = scrub(text);
  for (const [pattern, replacement] of KEY_SHAPES) out = out.replace(pattern, replacement);
  return out
    .replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

function classify(error: unknown, status: number | undefined): ProviderErrorClass {
  if (status !== undefined) {
    if (status === 401 || status === 403) return 'authentication';
    if (status === 429) return 'rate_limited';
    if (status === 404) return 'not_found';
    if (status === 408) return 'timeout';
    if (status >= 500) return 'server_error';
    if (status >= 400) return 'bad_request';
    return 'invalid_response';
  }
  if (APICallError.isInstance(error)) {
    // fetchWithTimeout's deadline (timeout-fetch.ts) and fetchWithReplyLimit (reply-limit-fetch.ts) mark their errors;
    // anything else without a status never got a response.
    const reason = reasonOf(error);
    return reason === 'timeout' ? 'timeout' : reason === 'reply_too_large' ? 'reply_too_large' : 'network';
  }
  const name = error instanceof Error ? error.name : '';
  if (/JSONParse|TypeValidation|InvalidResponse|EmptyResponseBody|NoContentGenerated/i.test(name)) return 'invalid_response';
  if (name === 'TimeoutError') return 'timeout';
  return 'unknown';
}

/** The reply_too_large error (reply-limit-fetch.ts) that `error` is or wraps, a few causes deep. */
function replyTooLargeIn(error: unknown): APICallError | undefined {
  let current = error;
  for (let depth = 0; depth < 4 && current !== undefined && current !== null; depth += 1) {
    if (APICallError.isInstance(current) && current.statusCode === undefined && reasonOf(current) === 'reply_too_large') return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function reasonOf(error: APICallError): unknown {
  const data = error.data as { reason?: unknown } | undefined;
  return data?.reason;
}

function rawMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === 'object' && error !== null && 'message' in error && typeof error.message === 'string') return error.message;
  return typeof error === 'string' ? error : '';
}
