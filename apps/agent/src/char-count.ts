/**
 * How every limit on a person's text counts its length: in characters as people count them, code points — as docs/API.md
 * says and Postgres's char_length counts — not JavaScript's UTF-16 units, which count an emoji, or any character beyond
 * the Basic Multilingual Plane, twice. The API took a question of 1,000 emoji (1,000 characters) that `ask`, and
 * `eval --questions` and `calibrate` reading the marks' export, refused as "2000 characters; the limit is 1000" (S-288).
 * Every check of MAX_QUESTION_CHARS counts with this.
 */
export function charCount(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}
