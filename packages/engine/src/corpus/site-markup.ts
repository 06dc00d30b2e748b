/**
 * Site generators' markup that a passage holds as text: a Hugo shortcode (`{{< admonition type="note" >}}`,
 * `{{% /notice %}}`), a Liquid or GitBook tag (`{% include_cached common/upgrade/rollback.md %}`, `{% tabs %}`), a
 * markdown comment or link definition (`[//]: # 'shared content'`, `[1]: https://…`), a Docusaurus admonition fence
 * (`:::note`), a bare HTML tag (`<details>`). A rendered page shows none of it as words.
 *
 * S-216: the shortcode, Liquid tag and link-definition kinds were regular expressions tried from every position
 * (`/\{\{[<%][\s\S]*?[%>]\}\}/g`, `/\{%[\s\S]*?%\}/g`, `/^\[[^\]]+\]:\s+\S.*$/gm`), and so was the tab label below.
 * Where the closing `%}}`, `%}`, `]` or `</summary>` was missing or far, every `{{<`, `{%`, `[` opening a line or
 * `<summary` read on to it or to the end of the text (a label's `[^\]]` runs across lines), so a runbook of 20,000
 * lines of `[x` held corpus loading (section roles' `isPlaceholder`) for seconds, and a sentence of many `<summary`
 * held an answer (`onlyMarkup`). Here each opener is found by a scan that resumes where the last match ended, and the
 * closer after it by a search that reads each character once. Each function returns exactly what its pattern's
 * `replace` did (checked against the patterns on every string of up to 7 to 9 of the symbols that matter, on 2
 * million random strings, and on every corpus's files and lines).
 *
 * The admonition fence and the bare tag stay patterns, read in time in proportion to the text: a fence starts only at
 * a line that opens with `:::`, and its `\s*` stops at the next one (a `:` is no space); a tag starts only at a `<`,
 * and its `[^<>]*` stops at the next `<`. No character is read from two starts.
 */
const ADMONITION_FENCE = /^:::[a-z]*\s*$/gim;
const HTML_TAG = /<\/?[a-z][a-z0-9-]*(?:\s[^<>]*)?\/?>/gi;

/** The text with its site markup taken out: what a rendered page shows of it as words, give or take an include. */
export function withoutSiteMarkup(text: string): string {
  // In the patterns' order: a shortcode's `%}}` is gone before a Liquid tag's `%}` is looked for.
  const t = withoutSpans(withoutSpans(text, SHORTCODE_OPEN, shortcodeEnd, ' '), LIQUID_OPEN, liquidEnd, ' ');
  return withoutLinkDefinitions(t).replace(ADMONITION_FENCE, ' ').replace(HTML_TAG, ' ');
}

/**
 * A sentence made of site markup alone says nothing, and is never offered as a claim: a page whose content is a
 * shortcode was "answered", verified, with `[//]: # 'Shared content …' {{< docs/shared lookup="…" >}}` (a
 * colleague's test on an unseen library, 2026-12-05; S-115).
 */
export function onlyMarkup(sentence: string): boolean {
  return !/[\p{L}\p{N}]/u.test(withoutSiteMarkup(withoutSpans(sentence, TAB_LABEL_OPEN, tabLabelEnd, '')));
}

/**
 * The text with each span from an opener to the first closer after it replaced by `by`: `text.replace(PATTERN, by)`
 * for a PATTERN `OPENER…[\s\S]*?CLOSER`, `endAfter` saying where the span opened by an opener ending at `from` ends
 * (-1: nowhere; and then nowhere from any later `from` either, as a search for the next closer is). The scan resumes
 * where the last span ended, as a global pattern's does.
 */
function withoutSpans(text: string, opener: RegExp, endAfter: (text: string, from: number) => number, by: string): string {
  let out = '';
  let kept = 0;
  for (;;) {
    opener.lastIndex = kept;
    const open = opener.exec(text);
    if (!open) break;
    const end = endAfter(text, opener.lastIndex);
    // S-216: no closer after this opener is none after any later one, whose search starts later: nothing more can
    // match. The pattern read on to the end of the text from each of them to learn it.
    if (end === -1) break;
    out += text.slice(kept, open.index) + by;
    kept = end;
  }
  return out + text.slice(kept);
}

/** `{{<` or `{{%`: where a Hugo shortcode opens. */
const SHORTCODE_OPEN = /\{\{[<%]/g;
/** `%}}` or `>}}`, whichever the opener was: `{{< a %}}` was one shortcode to the pattern, and stays one. */
const SHORTCODE_CLOSE = /[%>]\}\}/g;

function shortcodeEnd(text: string, from: number): number {
  SHORTCODE_CLOSE.lastIndex = from;
  const close = SHORTCODE_CLOSE.exec(text);
  return close ? close.index + 3 : -1;
}

/** `{%`: where a Liquid or GitBook tag opens. It closes at the first `%}` after its `%`: `{%}` is not closed. */
const LIQUID_OPEN = /\{%/g;

function liquidEnd(text: string, from: number): number {
  const close = text.indexOf('%}', from);
  return close === -1 ? -1 : close + 2;
}

/**
 * A collapsible block's label (`<details> <summary label="GKE"> GKE </summary>`): a tab's name, not something the page
 * says. It was drafted as a step between another cloud's steps (S-156). The pattern was
 * `/<summary\b[^>]*>[\s\S]*?<\/summary>/gi`: the opening tag runs to its first `>`, the label to the first
 * `</summary>` after, in any case.
 */
const TAB_LABEL_OPEN = /<summary\b/gi;
const TAB_LABEL_CLOSE = /<\/summary>/gi;

function tabLabelEnd(text: string, from: number): number {
  const tagEnd = text.indexOf('>', from);
  if (tagEnd === -1) return -1;
  TAB_LABEL_CLOSE.lastIndex = tagEnd + 1;
  const close = TAB_LABEL_CLOSE.exec(text);
  return close ? TAB_LABEL_CLOSE.lastIndex : -1;
}

/** A `[` opening a line: where a link definition (`[1]: https://…`, `[//]: # 'a comment'`) may start. */
const DEFINITION_OPEN = /^\[/gm;
const SPACES = /\s*/y;
const LINE_END = /[\n\r\u2028\u2029]/g;

/**
 * The text with each link definition replaced by a space: `text.replace(/^\[[^\]]+\]:\s+\S.*$/gm, ' ')`. A definition
 * is a `[` opening a line, a label of one character or more running to the first `]` after (across lines, as
 * `[^\]]` does), a `:`, spaces (across lines too), and something: it ends where that line ends.
 *
 * S-216: lines opening with `[` share the `]` that closes them, and a `]:` the spaces after it, so each is looked for
 * once and kept until a line past it asks: 20,000 lines of `[x` and a `]` at the end read the text once, not 20,000
 * times.
 */
function withoutLinkDefinitions(text: string): string {
  let out = '';
  let kept = 0;
  let labelEnd = -1; // the first `]` after the last `[` asked about
  let spacesOf = -1; // the `]` whose spaces were read last, and where they end
  let spacesEnd = -1;
  for (let from = 0; ; ) {
    DEFINITION_OPEN.lastIndex = from;
    const open = DEFINITION_OPEN.exec(text);
    if (!open) break;
    const at = open.index;
    if (labelEnd < at + 1) labelEnd = text.indexOf(']', at + 1);
    // No `]` after this `[` is none after any later one.
    if (labelEnd === -1) break;
    if (labelEnd > at + 1 && text[labelEnd + 1] === ':') {
      if (spacesOf !== labelEnd) {
        spacesOf = labelEnd;
        SPACES.lastIndex = labelEnd + 2;
        SPACES.test(text);
        spacesEnd = SPACES.lastIndex;
      }
      if (spacesEnd > labelEnd + 2 && spacesEnd < text.length) {
        LINE_END.lastIndex = spacesEnd + 1;
        const end = LINE_END.exec(text)?.index ?? text.length;
        out += `${text.slice(kept, at)} `;
        kept = end;
        from = end;
        continue;
      }
    }
    from = at + 1;
  }
  return out + text.slice(kept);
}
