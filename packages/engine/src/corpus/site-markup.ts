/**
 * Site generators' markup that a passage holds as text: a Hugo shortcode (`{{< admonition type="note" >}}`,
 * `{{% /notice %}}`), a Liquid or GitBook tag (`{% include_cached common/upgrade/rollback.md %}`, `{% tabs %}`), a
 * markdown comment or link definition (`[//]: # 'shared content'`, `[1]: https://…`), a Docusaurus admonition fence
 * (`:::note`), a bare HTML tag (`<details>`). A rendered page shows none of it as words.
 */
const SITE_MARKUP = [/\{\{[<%][\s\S]*?[%>]\}\}/g, /\{%[\s\S]*?%\}/g, /^\[[^\]]+\]:\s+\S.*$/gm, /^:::[a-z]*\s*$/gim, /<\/?[a-z][a-z0-9-]*(?:\s[^<>]*)?\/?>/gi];

/** The text with its site markup taken out: what a rendered page shows of it as words, give or take an include. */
export function withoutSiteMarkup(text: string): string {
  return SITE_MARKUP.reduce((t, re) => t.replace(re, ' '), text);
}

/**
 * A sentence made of site markup alone says nothing, and is never offered as a claim: a page whose content is a
 * shortcode was "answered", verified, with `[//]: # 'Shared content …' {{< docs/shared lookup="…" >}}` (a
 * colleague's test on an unseen library, 2026-12-05; S-115).
 */
export function onlyMarkup(sentence: string): boolean {
  return !/[\p{L}\p{N}]/u.test(withoutSiteMarkup(sentence.replace(TAB_LABEL, '')));
}

/**
 * A collapsible block's label (`<details> <summary label="GKE"> GKE </summary>`): a tab's name, not something the page
 * says. It was drafted as a step between another cloud's steps (S-156).
 */
const TAB_LABEL = /<summary\b[^>]*>[\s\S]*?<\/summary>/gi;
