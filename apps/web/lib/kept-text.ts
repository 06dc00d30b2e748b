/**
 * What a refused form sends back in its redirect's URL so the box is not emptied (a question over the agent's limit,
 * an investigation's message). S-223: that text was cut by characters only, and a URL is read by bytes: 2,000 Chinese
 * characters (or 1,500 emoji) percent-encode to 18 KB, over the 16 KB of request head Node.js reads, so the browser
 * landed on "HTTP ERROR 431" and the typed text was lost, while 20,000 ASCII characters were cut and handled.
 */

/**
 * The most of the URL the kept text may take, as it is encoded there. The server reads 16 KB of request line and
 * headers; the rest of the address, the cookies and the browser's own headers take a few KB of it. A page carrying
 * 10.8 KB of kept text still loaded and navigated in Chromium (measured once by hand); this leaves room beyond that.
 */
export const KEPT_TEXT_URL_BYTES = 8_000;

/** Query parameter saying the kept text is only its beginning, so the page can say it was cut (S-223). */
export const CUT_PARAM = 'cut';

/** `text` as far as it fits in `maxChars` UTF-16 units and `maxUrlBytes` of its form-encoding, and whether it was cut. */
export function keptForUrl(text: string, maxChars: number, maxUrlBytes = KEPT_TEXT_URL_BYTES): { text: string; cut: boolean } {
  let chars = 0;
  let bytes = 0;
  let kept = '';
  // Whole graphemes only: a cut through a surrogate pair left a lone half (U+FFFD), one through an emoji sequence
  // (a flag, a family) a different emoji.
  for (const { segment } of new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text)) {
    chars += segment.length;
    // Percent-encoding is per character, so the pieces' lengths add up to the whole's.
    bytes += new URLSearchParams({ t: segment }).toString().length - 2;
    if (chars > maxChars || bytes > maxUrlBytes) return { text: kept, cut: true };
    kept += segment;
  }
  return { text, cut: false };
}

/** Characters as a person counts them: an emoji joined from three code points is one. */
const graphemes = (text: string) => [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text)].length;

/** What a page says under the problem when the text in its box is only the beginning of what was typed (S-223). */
export function cutNotice(kept: string, what: 'question' | 'message' | 'note'): string {
  return `Your ${what} was too long to bring back whole: the box holds its first ${graphemes(kept).toLocaleString('en')} characters. Copy what you need from where you wrote it.`;
}
