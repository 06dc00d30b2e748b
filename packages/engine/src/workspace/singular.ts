/**
 * The singular forms a plural word may have, most likely first: "errors" → "error", "responses" → "response",
 * "crashes" → "crash", "retries" → "retry". S-235: "what errors happened around 03:12?" searched for the text
 * "errors", and answered `No line … mentions "errors"` of files whose lines say ERROR. A search is for a substring,
 * so the singular finds the plural too; it is tried only where the word as asked is in no line. A word that is not a
 * plural ("status", "process", "analysis") has none.
 */
export function singularForms(word: string): string[] {
  const w = word.toLowerCase();
  if (!/^[a-z]+$/.test(w) || w.length < 4 || /(?:ss|us|is)$/.test(w)) return [];
  if (w.endsWith('ies')) return [`${w.slice(0, -3)}y`];
  if (w.endsWith('es')) return [w.slice(0, -1), w.slice(0, -2)];
  if (w.endsWith('s')) return [w.slice(0, -1)];
  return [];
}
