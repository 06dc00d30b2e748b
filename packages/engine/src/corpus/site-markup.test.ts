import { describe, expect, it } from 'vitest';
import { onlyMarkup, withoutSiteMarkup } from './site-markup.ts';

describe('site markup, taken out in one pass (S-115, S-156, S-216)', () => {
  it('takes out shortcodes and Liquid tags to the first closer after their opener, and leaves unclosed ones', () => {
    expect(withoutSiteMarkup('{{< note >}} Drain the node. {{< {{% x')).toBe('  Drain the node. {{< {{% x');
    // Either closer closes either opener; a `{{%}}` is no shortcode, its `%` opening it and not closing it too.
    expect(withoutSiteMarkup('{{< tabs %}}a{{%}}b>}}')).toBe(' a ');
    expect(withoutSiteMarkup('{% include a.md %} Roll back. {% {%')).toBe('  Roll back. {% {%');
    expect(withoutSiteMarkup('{%}%} x {% a }%')).toBe('  x {% a }%');
  });

  it('takes out a link definition from a line-opening `[` to its line’s end, its label and spaces running across lines', () => {
    expect(withoutSiteMarkup('[x\n[x\n[1]: https://a.example.com\n[x')).toBe(' \n[x');
    expect(withoutSiteMarkup('[x\n[y\n]:  \n\t next\n[z')).toBe(' \n[z');
    expect(withoutSiteMarkup(`${'[x\n'.repeat(1000)}]: a\nb`)).toBe(' \nb');
    expect(withoutSiteMarkup('[]: a\n[a]:b\n[a]:\n\nb c\r[/]: # x')).toBe('[]: a\n[a]:b\n \r ');
    expect(withoutSiteMarkup(':::note\n\n\ntext\n<br/>')).toBe(' \ntext\n ');
  });

  it('reads a tab label as markup, to the first `</summary>` in any case after its tag’s `>`', () => {
    expect(onlyMarkup('<details><summary>GKE</summary></details>')).toBe(true);
    expect(onlyMarkup('<SUMMARY x>GKE</Summary>')).toBe(true);
    expect(onlyMarkup('<summary>GKE</summary> <summary')).toBe(false);
    expect(onlyMarkup('<summary>GKE')).toBe(false);
  });

  // S-216: the shortcode, Liquid, link-definition and tab-label patterns read to the end of the text from every
  // unclosed `{{<`, `{%`, line-opening `[` or `<summary`: on the old code these texts took seconds each (measured once,
  // by hand; they are in the defect log). Time is the only measure of that, so the bound is generous, a second for
  // each where the scans take milliseconds. The answers are what the patterns gave (null: the text left as it was).
  for (const [what, text, rest, markupOnly] of [
    ['100,000 unclosed `{{<`', '{{<'.repeat(100_000), null, true],
    ['100,000 unclosed `{%`', '{%'.repeat(100_000), null, true],
    ['40,000 lines of `[x`', '[x\n'.repeat(40_000), null, false],
    ['40,000 lines of `[x` and a `]:` with only spaces after it', `${'[x\n'.repeat(40_000)}]:${' \n'.repeat(40_000)}`, null, false],
    ['40,000 lines of `[x` and a `]` at the end', `${'[x\n'.repeat(40_000)}]`, null, false],
    ['30,000 unclosed `<summary`', '<summary'.repeat(30_000), null, false],
    ['40,000 unclosed `<summary>`', '<summary>'.repeat(40_000), ' '.repeat(40_000), true],
  ] as const) {
    it(`reads a text of ${what} in time in proportion to its length (S-216)`, () => {
      const started = performance.now();
      const left = withoutSiteMarkup(text);
      const markup = onlyMarkup(text);
      expect(performance.now() - started).toBeLessThan(1000);
      expect(left).toBe(rest ?? text);
      expect(markup).toBe(markupOnly);
    });
  }
});
