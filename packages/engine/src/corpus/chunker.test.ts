import { describe, expect, it } from 'vitest';
import { chunkDocument, documentTitle, MIN_PASSAGE_CHARS, slugify, splitFrontMatter, withoutComments } from './chunker.ts';

const long = (word: string) => `${word} `.repeat(50).trim(); // 50 × (len+1) - 1 chars, well over 200

describe('heading-aligned chunker', () => {
  it('makes one passage per heading with stable, readable ids', () => {
    const text = `# Runbook: Pool\n\nIntro ${long('alpha')}\n\n## Confirm the pool is saturated\n\n${long('beta')}\n\n## Shed load\n\n${long('gamma')}\n`;
    const chunks = chunkDocument({ doc: 'runbook-pool.md', title: 'Runbook: Pool', text });
    expect(chunks.map((c) => c.id)).toEqual(['runbook-pool#runbook-pool', 'runbook-pool#confirm-the-pool-is-saturated', 'runbook-pool#shed-load']);
    expect(chunks[1]!.heading).toBe('Confirm the pool is saturated');
    expect(chunks[1]!.text).toBe(long('beta'));
  });

  it(`merges a section under ${MIN_PASSAGE_CHARS} characters forward into its neighbour, keeping the first heading`, () => {
    const text = `# Doc\n\n${long('intro')}\n\n## Short\n\nTiny body.\n\n## Next\n\n${long('delta')}\n`;
    const chunks = chunkDocument({ doc: 'd.md', title: 'Doc', text });
    expect(chunks.map((c) => c.id)).toEqual(['d#doc', 'd#short']);
    expect(chunks[1]!.text).toContain('Tiny body.');
    expect(chunks[1]!.text).toContain('## Next\n\n');
    expect(chunks[1]!.text).toContain('delta');
  });

  it('merges a short last section backward', () => {
    const text = `# Doc\n\n${long('intro')}\n\n## Tail\n\nTiny.\n`;
    const chunks = chunkDocument({ doc: 'd.md', title: 'Doc', text });
    expect(chunks).toHaveLength(1);
    expect(chunks[0]!.text).toContain('## Tail\n\nTiny.');
  });

  it('takes the title from a heading the page shows, not a comment in a code block or an HTML comment (S-078)', () => {
    const text =
      'Load the image first:\n\n```console\n# The cri plugin uses the "k8s.io" namespace.\n$ ctr -n=k8s.io images import pause.tar\n```\n\n<!--\n# Draft title\n-->\n# Loading images\n\nText.\n';
    expect(documentTitle('crictl.md', text)).toBe('Loading images');
    expect(documentTitle('crictl.md', '```bash\n# install it\n```\n')).toBe('crictl');
  });

  it('ignores headings inside code fences and de-duplicates slugs', () => {
    const text = `# Doc\n\n${long('alpha')}\n\n## Steps\n\n\`\`\`\n# not a heading\n\`\`\`\n${long('bravo')}\n\n## Steps\n\n${long('charlie')}\n`;
    const ids = chunkDocument({ doc: 'd.md', title: 'Doc', text }).map((c) => c.id);
    expect(ids).toEqual(['d#doc', 'd#steps', 'd#steps-2']);
    expect(chunkDocument({ doc: 'd.md', title: 'Doc', text })[1]!.text).toContain('```\n# not a heading\n```');
  });

  it('closes a fence only on a run of its own character, and keeps a closing # that is part of the heading (S-078)', () => {
    const text = `# Doc\n\n${long('alpha')}\n\n## Tilde\n\n~~~markdown\n\`\`\`bash\n# a comment\n\`\`\`\n## Example heading\n~~~\n${long('bravo')}\n\n## Using C#\n\n${long('charlie')}\n\n## Closed ##\n\n${long('delta')}\n`;
    const chunks = chunkDocument({ doc: 'd.md', title: 'Doc', text });
    expect(chunks.map((c) => c.heading)).toEqual(['Doc', 'Tilde', 'Using C#', 'Closed']);
    expect(chunks[1]!.text).toContain('## Example heading');
    expect(documentTitle('d.md', '~~~\n```\n~~~\n# Real title\n')).toBe('Real title');
  });

  it('reads what the rendered page shows: a commented-out draft is no passage, a comment in code stays (S-041)', () => {
    const draft = `<!--\n## Miscellaneous\n\n**What happens if every node fails at once?**\n\nTODO\n-->`;
    const text = `# FAQ\n<!-- SPDX-License-Identifier: CC-BY-4.0 -->\n\n${long('alpha')}\n\n${draft}\n\n## Backups\n\nKept <!-- inline note --> for ${long('bravo')}\n\n\`\`\`html\n<!-- in code -->\n\`\`\`\n`;
    const chunks = chunkDocument({ doc: 'faq.md', title: 'FAQ', text });
    expect(chunks.map((c) => c.id)).toEqual(['faq#faq', 'faq#backups']);
    expect(chunks.map((c) => c.text).join('\n')).not.toMatch(/every node|TODO|SPDX|inline note/);
    expect(chunks[1]!.text).toContain('Kept  for bravo');
    expect(chunks[1]!.text).toContain('<!-- in code -->');
    expect(withoutComments('a\n<!-- one\n\ntwo -->\nb <!-- x --> c')).toBe('a\nb  c');
    expect(withoutComments('a line break  \nnext')).toBe('a line break  \nnext');
    // An unclosed comment hides the rest of the page, as it does when rendered.
    expect(withoutComments('kept\n<!-- never closed\n## Hidden\ntext')).toBe('kept');
  });

  it('reads a file saved with a UTF-8 byte-order mark as it reads the same file without one', () => {
    // Windows editors save UTF-8 with a BOM; kept by the decoder, it hid the front matter and the title heading.
    const text = `---\ntitle: Disk\nowner: sre\n---\n# Disk runbook\n\n${long('alpha')}\n`;
    const plain = chunkDocument({ doc: 'disk.md', title: documentTitle('disk.md', text), text });
    const bom = chunkDocument({ doc: 'disk.md', title: documentTitle('disk.md', `\uFEFF${text}`), text: `\uFEFF${text}` });
    expect(bom).toEqual(plain);
    expect(bom[0]!.text).not.toMatch(/owner: sre|# Disk runbook/);
    expect(documentTitle('disk.md', `\uFEFF# Disk runbook\n\n${long('alpha')}`)).toBe('Disk runbook');
  });

  it("takes Hugo's TOML front matter off the page as it takes YAML's, keeping its title (S-119)", () => {
    const text = `+++\ntitle = "health"\ndescription = "*health* enables a health check endpoint."\nweight = 24\ndate = "2022-09-08T18:42:54"\n+++\n\n## Description\n\n${long('alpha')}\n`;
    expect(splitFrontMatter(text)).toEqual({ body: `\n## Description\n\n${long('alpha')}\n`, title: 'health' });
    expect(documentTitle('plugins/health.md', text)).toBe('health');
    const chunks = chunkDocument({ doc: 'plugins/health.md', title: 'health', text });
    expect(chunks.map((c) => c.text).join('\n')).not.toMatch(/\+\+\+|weight = 24|2022-09-08/);
    // A `+++` that closes nothing is the page's own text.
    expect(splitFrontMatter('+++\nnot front matter').body).toBe('+++\nnot front matter');
  });

  it('slugifies punctuation and case', () => {
    expect(slugify('orders-db: Connection Pool (ceiling)')).toBe('orders-db-connection-pool-ceiling');
  });
});
