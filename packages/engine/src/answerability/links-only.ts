import { nextOf } from './markup-spans.ts';

/**
 * A line made of links alone — `See [the dashboard](https://…).`, `https://a, https://b and [c](…)` — says nothing in
 * words: a section whose lines are all such is a placeholder (S-042).
 *
 * It was one pattern, read with `.test`:
 * `/^(?:(?:see|refer to|check|read)\s+)?(?:LINK)(?:\s*(?:,|and|or)?\s*(?:LINK))*\s*[.:]?$/i`, where LINK is
 * `!?\[[^\]]*\]\([^)]*\)|<?https?:\/\/\S+>?`. Each separator could split its spaces between its two `\s*` in as many
 * ways as it had spaces and one, and a URL could end at any character of its run, so a line of links that failed at its
 * end was tried in every combination: 14 links three spaces apart and a word took 9 s, 16 links 268 s (S-214). Here
 * the line is read once, left to right, marking the positions the pattern can reach; each is reached once, however
 * many ways lead to it. Same answer on every line (checked against the pattern on every string of up to 7 symbols of
 * those that matter, and on every corpus's lines).
 */

/**
 * How such a line opens: a link's or a URL's head, perhaps after "see". Most lines do not, and are told so at once,
 * before a reading of the whole line is set up.
 */
const OPENS_WITH_LINK = /^(?:(?:see|refer to|check|read)\s+)?(?:!?\[|<?https?:\/\/\S)/i;
/** `(?:see|refer to|check|read)\s`: the word that opens a referral, and the first of the spaces after it. */
const REFERRAL_WORD = /(?:see|refer to|check|read)\s/iy;
/** The word of a separator between two links, if it has one. */
const SEPARATOR_WORD = /,|and|or/iy;
/** A URL's head and its first character: from there on it may end after any character of its run. */
const URL_HEAD = /<?https?:\/\/\S/iy;
const SPACE = /\s/;

// What a position of the line is, as it is reached.
const LINK_START = 1; // a link may start here
const AFTER_LINK = 2; // a link ends just before here
const URL_RUN = 4; // a URL may end here, or anywhere further in its run of non-space characters

/** `/^(?:(?:see|refer to|check|read)\s+)?(?:LINK)(?:\s*(?:,|and|or)?\s*(?:LINK))*\s*[.:]?$/i.test(line)`. */
export function isLinksOnly(line: string): boolean {
  if (!OPENS_WITH_LINK.test(line)) return false;
  const n = line.length;
  const at = new Uint8Array(n + 1);
  let horizon = 0;
  const mark = (i: number, what: number) => {
    at[i]! |= what;
    if (i > horizon) horizon = i;
  };
  const spacesFrom = (i: number) => {
    while (i < n && SPACE.test(line[i]!)) i++;
    return i;
  };
  // An inline link's label runs to its first `]`, its target to the first `)` after. Links are tried in order of
  // position, so each cursor is asked with positions that never move back.
  const labelEnd = nextOf(line, ']');
  const targetEnd = nextOf(line, ')');

  mark(0, LINK_START);
  REFERRAL_WORD.lastIndex = 0;
  if (REFERRAL_WORD.test(line)) mark(spacesFrom(REFERRAL_WORD.lastIndex), LINK_START);

  let inUrl = false;
  let separated = -1;
  for (let i = 0; i <= n; i++) {
    if (at[i]! & URL_RUN) inUrl = true;
    if ((at[i]! & AFTER_LINK) !== 0 || inUrl) {
      const next = spacesFrom(i);
      // `\s*[.:]?$`: the line ends here, give or take spaces and a full stop or colon.
      if (next === n || (next === n - 1 && (line[next] === '.' || line[next] === ':'))) return true;
      if (next !== separated) {
        separated = next;
        mark(next, LINK_START);
        SEPARATOR_WORD.lastIndex = next;
        if (SEPARATOR_WORD.test(line)) mark(spacesFrom(SEPARATOR_WORD.lastIndex), LINK_START);
      }
    }
    if (at[i]! & LINK_START) {
      // `!?\[[^\]]*\]\([^)]*\)`
      const open = line[i] === '!' ? i + 1 : i;
      if (line[open] === '[') {
        const label = labelEnd(open + 1);
        const target = label !== -1 && line[label + 1] === '(' ? targetEnd(label + 2) : -1;
        if (target !== -1) mark(target + 1, AFTER_LINK);
      }
      // `<?https?:\/\/\S+>?`: `>` is not a space, so the run takes it.
      URL_HEAD.lastIndex = i;
      if (URL_HEAD.test(line)) mark(URL_HEAD.lastIndex, URL_RUN);
    }
    if (i < n && SPACE.test(line[i]!)) inUrl = false;
    // Nothing marked further on, and no URL running on: no position past here can be reached.
    if (!inUrl && i >= horizon) return false;
  }
  return false;
}
