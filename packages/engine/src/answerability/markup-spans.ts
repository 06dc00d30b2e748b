/**
 * The markup of a section's body that says nothing in words — links, embedded players, HTML comments — found in one
 * pass over the text.
 *
 * S-214: each of these was a regular expression the engine tried from every start position
 * (`/\[[^\]]*\]\([^)]*\)|\[[^\]]*\]\[[^\]]*\]|<?https?:\/\/\S+>?/g`, `/<(img|…)\b[^>]*>(?:\s*<\/\1>)?/gi`,
 * `/<!--[\s\S]*?-->/g`, `/\]\([^)]*\)/g`). Where the closing `]`, `)`, `>` or `-->` was missing, every `[`, `[a](`,
 * `<img ` or `<!--` read on to the end of the text before failing, so a runbook of 40,000 unclosed `[` took seconds to
 * index (5 s in S-211's reading, 12 to 33 s on a busy machine). Here the closing character after a position is asked
 * of a cursor that reads each character once, and a missing one ends the search. Each function returns exactly what
 * its pattern did: the same matches, the same text left, the same answer (checked against the patterns on every string
 * of up to 7 to 9 symbols of those that matter, and on every corpus's sections).
 */

/**
 * The first `char` at or after a position, or -1. Asked with positions that never move back, it reads each character
 * of the text at most once in all: an answer stands until a question starts past it, and "none" stands for good.
 * (Asked out of order it still answers right, only slower.)
 */
export function nextOf(text: string, char: string): (from: number) => number {
  let askedFrom = Number.POSITIVE_INFINITY;
  let found = -1;
  return (from) => {
    if (from < askedFrom || (found !== -1 && found < from)) {
      askedFrom = from;
      found = text.indexOf(char, from);
    }
    return found;
  };
}

/** Where a link may start: a `[`, or a URL's head. No link starts anywhere else, so the scan leaps from one to the next. */
const LINK_HEAD = /\[|<?https?:\/\//g;
/**
 * A bare URL, or one in angle brackets: the third kind of link. Tried only where one starts; it fails within its
 * first few characters or matches to the end of its run of non-space characters, so it never reads a character twice.
 */
const URL_AT = /<?https?:\/\/\S+>?/y;

/**
 * Where the links of a text stand, first to last, as `/\[[^\]]*\]\([^)]*\)|\[[^\]]*\]\[[^\]]*\]|<?https?:\/\/\S+>?/g`
 * finds them: an inline link `[label](target)` (the label runs to its first `]`, the target to its first `)`), a
 * reference `[label][ref]`, or a URL. A scan resumes after each link, as a global pattern does.
 */
function* linkSpans(text: string): Generator<readonly [start: number, end: number]> {
  // Three cursors, one for each question, so that each is asked with positions that never move back: the label's
  // `]` after each `[` in turn, and the target's `)` or the reference's `]` after that label.
  const labelEnd = nextOf(text, ']');
  const targetEnd = nextOf(text, ')');
  const referenceEnd = nextOf(text, ']');
  for (let from = 0; ; ) {
    LINK_HEAD.lastIndex = from;
    const head = LINK_HEAD.exec(text);
    if (!head) return;
    const i = head.index;
    let end = -1;
    if (text[i] === '[') {
      const label = labelEnd(i + 1);
      if (label !== -1) {
        const after = text[label + 1];
        const close = after === '(' ? targetEnd(label + 2) : after === '[' ? referenceEnd(label + 2) : -1;
        if (close !== -1) end = close + 1;
      }
    } else {
      URL_AT.lastIndex = i;
      if (URL_AT.test(text)) end = URL_AT.lastIndex;
    }
    if (end === -1) from = i + 1;
    else {
      yield [i, end];
      from = end;
    }
  }
}

/** Most lines hold neither a `[` nor a URL, and are told so before a scan is set up for them. */
function mayHoldLink(text: string): boolean {
  return text.includes('[') || text.includes('http');
}

/** The links of a text, first to last: what `text.match(LINK)` returned, LINK being the pattern `linkSpans` names. */
export function links(text: string): string[] {
  if (!mayHoldLink(text)) return [];
  return Array.from(linkSpans(text), ([start, end]) => text.slice(start, end));
}

/** The text with each link replaced by `by`: `text.replace(LINK, by)`. */
export function withoutLinks(text: string, by: string): string {
  if (!mayHoldLink(text)) return text;
  let out = '';
  let kept = 0;
  for (const [start, end] of linkSpans(text)) {
    out += text.slice(kept, start) + by;
    kept = end;
  }
  return out + text.slice(kept);
}

/**
 * Whether a text holds a link: `/\[[^\]]*\]\([^)]*\)|\[[^\]]*\]\[[^\]]*\]|https?:\/\/\S+/.test(text)`. A URL in angle
 * brackets holds one without them, so this is whether `linkSpans` finds any.
 */
export function holdsLink(text: string): boolean {
  return mayHoldLink(text) && !linkSpans(text).next().done;
}

/** An embedded picture or player where one starts: `<img …>`, `<iframe …></iframe>`, `<video …>`. */
const EMBED_AT = /<(img|iframe|video|object|embed)\b[^>]*>(?:\s*<\/\1>)?/iy;

/**
 * The text without its embedded pictures and players: `text.replace(EMBED, '')`, EMBED being
 * `/<(img|iframe|video|object|embed)\b[^>]*>(?:\s*<\/\1>)?/gi`. The pattern is tried only at a `<` with a `>` after
 * it: past its tag name it then cannot fail, and reads only what it removes.
 */
export function withoutEmbeds(text: string): string {
  const tagEnd = nextOf(text, '>');
  let out = '';
  let kept = 0;
  for (let i = text.indexOf('<'); i !== -1; ) {
    // No `>` after this `<` is none after any later one either: nothing more can match.
    if (tagEnd(i + 1) === -1) break;
    EMBED_AT.lastIndex = i;
    if (EMBED_AT.test(text)) {
      out += text.slice(kept, i);
      kept = EMBED_AT.lastIndex;
      i = text.indexOf('<', kept);
    } else i = text.indexOf('<', i + 1);
  }
  return out + text.slice(kept);
}

/**
 * The text without its HTML comments: `text.replace(/<!--[\s\S]*?-->/g, '')`, a comment running to the first `-->`
 * after its `<!--`. One left open removes nothing, nor does any after it: no `-->` follows them.
 */
export function withoutHtmlComments(text: string): string {
  let out = '';
  let kept = 0;
  for (let open = text.indexOf('<!--'); open !== -1; open = text.indexOf('<!--', kept)) {
    const close = text.indexOf('-->', open + 4);
    if (close === -1) break;
    out += text.slice(kept, open);
    kept = close + 3;
  }
  return out + text.slice(kept);
}

/**
 * The text with each link's target taken out, its label kept: `text.replace(/\]\([^)]*\)/g, ']')`, a target running
 * to the first `)` after its `](`. One left open takes nothing out, nor does any after it.
 */
export function withoutLinkTargets(text: string): string {
  let out = '';
  let kept = 0;
  for (let open = text.indexOf(']('); open !== -1; open = text.indexOf('](', kept)) {
    const close = text.indexOf(')', open + 2);
    if (close === -1) break;
    out += `${text.slice(kept, open)}]`;
    kept = close + 1;
  }
  return out + text.slice(kept);
}
