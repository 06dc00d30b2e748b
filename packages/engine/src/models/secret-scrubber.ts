/** Replaces every configured secret in a string; the identity when none is configured. */
export type SecretScrubber = (text: string) => string;

/** What a scrubbed secret becomes. One word, so a reader sees something was there. */
export const REDACTED = '[redacted]';

/**
 * A secret shorter than this is not scrubbed: it would match ordinary words and
 * mangle every answer. Real keys are far longer; AGENT_TOKEN and IP_SALT must be
 * at least 16 characters (config.ts).
 */
export const MIN_SCRUBBED_SECRET_CHARS = 8;

/**
 * A scrubber for the secrets this deployment is configured with — provider
 * keys, the service token, the salt, database and Redis passwords. Issue 12,
 * defect 3: a provider that echoed its key in an error body put it on the run
 * page, the API and `provider_event`. Pattern matching alone cannot know that
 * `correct horse battery staple` is a salt; the configured values can.
 *
 * Longest first, so a secret that contains another is replaced whole. Pure:
 * the caller collects the values (the engine reads no environment).
 */
export function createSecretScrubber(secrets: Iterable<string | null | undefined>): SecretScrubber {
  const values = [...new Set([...secrets].filter((s): s is string => typeof s === 'string' && s.length >= MIN_SCRUBBED_SECRET_CHARS))].sort(
    (a, b) => b.length - a.length,
  );
  if (values.length === 0) return (text) => text;
  return (text) => {
    let out = text;
    for (const secret of values) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    return out;
  };
}

/**
 * Every string inside `value` scrubbed — object keys too — for records built
 * of nested plain data (a run result, span attributes). Anything that is not
 * a string, an array or a plain object is returned as it is.
 */
export function scrubDeep<T>(value: T, scrub: SecretScrubber): T {
  return walk(value, scrub) as T;
}

function walk(value: unknown, scrub: SecretScrubber): unknown {
  if (typeof value === 'string') return scrub(value);
  if (Array.isArray(value)) return value.map((v) => walk(v, scrub));
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [scrub(k), walk(v, scrub)]));
  }
  return value;
}
