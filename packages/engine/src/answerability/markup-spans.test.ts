import { describe, expect, it } from 'vitest';
import { holdsLink, links, nextOf, withoutEmbeds, withoutHtmlComments, withoutLinks, withoutLinkTargets } from './markup-spans.ts';

describe('the markup of a section body, found in one pass (S-214)', () => {
  it('finds inline links, references and URLs as the link pattern did, a label running to its first `]`', () => {
    const text = 'See [the runbook](https://wiki.example.com/r) or [docs][1], then <https://grafana.example.com/d> and http://x.io/a.';
    expect(links(text)).toEqual(['[the runbook](https://wiki.example.com/r)', '[docs][1]', '<https://grafana.example.com/d>', 'http://x.io/a.']);
    expect(withoutLinks(text, ' ')).toBe('See   or  , then   and  ');
    // A label runs to its first `]`, across a `[`; an unclosed `[` before a link leaves the link whole.
    expect(links('[a [b](c) d](e)')).toEqual(['[a [b](c)']);
    expect(links('[a [b](c')).toEqual([]);
    expect(links('[[[ [a](b)')).toEqual(['[[[ [a](b)']);
    expect(links('x [y] z [w](v)')).toEqual(['[w](v)']);
  });

  it('says whether a line holds a link, a URL in angle brackets holding one without them', () => {
    expect(holdsLink('See the [guide](g.md) first.')).toBe(true);
    expect(holdsLink('Ask in <https://chat.example.com/oncall>')).toBe(true);
    expect(holdsLink('[a](b')).toBe(false);
    expect(holdsLink('Restart the [primary] node (carefully).')).toBe(false);
  });

  it('takes out embedded pictures and players with their closing tag, whatever its case, and nothing else', () => {
    expect(withoutEmbeds('<iframe width="560" src="https://example.com/v"></iframe> Watch it.')).toBe(' Watch it.');
    expect(withoutEmbeds('<IMG src="a.png">\n  </img>Next')).toBe('Next');
    expect(withoutEmbeds('<video src="v.mp4"></img>')).toBe('</img>');
    expect(withoutEmbeds('<imgs> <images> <a href="x">')).toBe('<imgs> <images> <a href="x">');
    expect(withoutEmbeds('<img src="a.png"')).toBe('<img src="a.png"');
  });

  it('takes out HTML comments to their first `-->`, and link targets to their first `)`', () => {
    expect(withoutHtmlComments('a<!-- b -->c<!-- d --> e --> f<!-- g')).toBe('ac e --> f<!-- g');
    expect(withoutHtmlComments('<!---->x')).toBe('x');
    expect(withoutLinkTargets('See [the docs](https://d.example.com) and [more](m.md')).toBe('See [the docs] and [more](m.md');
  });

  it('answers where a character is next, asked in any order', () => {
    const next = nextOf('a]b]c', ']');
    expect([0, 1, 2, 3, 4, 0, 5].map(next)).toEqual([1, 1, 3, 3, -1, 1, -1]);
  });
});
