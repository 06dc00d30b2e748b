/**
 * The first `max` UTF-16 units of `text`, one fewer when the cut would fall
 * between the two halves of a surrogate pair (an emoji, a CJK extension
 * character). A cut that kept the high half left an unpaired surrogate, which
 * JSON.stringify escapes as `\ud83d` and Postgres refuses in jsonb: a log line
 * with an emoji at the cut made every turn that quoted it a 500, after the
 * user's message was stored (the same rule request-text.ts applies to input).
 */
export function headOf(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = max > 0 && isHighSurrogate(text.charCodeAt(max - 1)) ? max - 1 : max;
  return text.slice(0, Math.max(0, end));
}

/** `text` cut to `max` units with `…` after it when it was cut, never splitting a surrogate pair (headOf). */
export function clipText(text: string, max: number): string {
  return text.length > max ? `${headOf(text, max)}…` : text;
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff;
}
