import { describe, expect, it } from 'vitest';
import { isLinksOnly } from './links-only.ts';

describe('a line made of links alone (S-042, S-214)', () => {
  it('sees links, pictures and URLs, with the words between them a list of links has', () => {
    for (const line of [
      'See [the dashboard](https://example.com/d).',
      'refer to  <https://wiki.example.com/x>:',
      '![decision tree](tree.png)',
      'https://a.example.com, https://b.example.com and [c](c.md) OR [d](d.md)',
      `${'[a](b)   '.repeat(25)}.`,
      // A URL may end before a link that has a space in it, as the pattern let it.
      'http://a[b c](d)',
    ])
      expect(isLinksOnly(line), line).toBe(true);
  });

  it('does not see a line that says something beside its links', () => {
    for (const line of [
      '',
      'Check out [the dashboard](https://example.com/d)',
      '[Runbook](r.md) for the primary',
      'https://a.example.com then https://b.example.com',
      '[a](b',
      '[ref][1]',
      `${'[a](b) '.repeat(25)}x`,
    ])
      expect(isLinksOnly(line), line).toBe(false);
  });
});
