/**
 * Text a turn stores, made storable: a NUL and an unpaired surrogate each
 * become U+FFFD. Both are valid JSON escapes (`\u0000`, `\ud83d`), so a
 * model's reply or a tool call's arguments can carry them, and Postgres
 * refuses both — in text and in jsonb — so the turn was a 500 and its answer
 * lost. Requests are refused for them at the door (request-text.ts); a model
 * cannot be sent back, so what it wrote is kept, marked.
 */
export function storableText(text: string): string {
  return text.replace(UNSTORABLE, '\uFFFD');
}

/** `value` with every string in it storable (storableText), arrays and plain objects copied. */
export function storableValue(value: unknown): unknown {
  if (typeof value === 'string') return storableText(value);
  if (Array.isArray(value)) return value.map(storableValue);
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [storableText(k), storableValue(v)]));
  return value;
}

/**
 * What the store cannot hold: a NUL, or a surrogate without its other half. The one definition: the HTTP layer refuses
 * a request holding one (request-text.ts), the workspace replaces one a model wrote (above).
 */
export const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
