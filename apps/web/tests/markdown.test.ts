import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { Markdown, renderInline } from '../lib/markdown';

const html = (source: string) => renderToStaticMarkup(createElement(Markdown, { source, resolveDoc: (doc: string) => `/data#doc-${doc}` }));
const inline = (text: string) => renderToStaticMarkup(createElement('p', null, renderInline(text)));

describe('markdown (corpus passages, claims, remedies): links are allow-listed, HTML is text', () => {
  it('javascript:, data:, vbscript: and protocol-relative links are not links; their text stays', () => {
    for (const href of [
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      ' javascript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'vbscript:msgbox(1)',
      '//evil.example/x',
    ]) {
      const out = html(`see [the runbook](${href}) now`);
      expect(out, href).not.toMatch(/<a\b/);
      expect(out, href).toContain('the runbook');
      expect(inline(`see [the runbook](${href}) now`), href).not.toMatch(/<a\b/);
    }
  });

  it('http(s), in-page and site-relative links stay links; an external one gets rel=noopener; a corpus document maps to its page', () => {
    expect(html('[a](https://example.com/x)')).toContain('<a href="https://example.com/x" rel="noopener noreferrer nofollow">a</a>');
    expect(html('[b](#step-2)')).toContain('<a href="#step-2">b</a>');
    expect(html('[c](/runs)')).toContain('<a href="/runs">c</a>');
    expect(html('[d](runbook-orders-db.md)')).toContain('<a href="/data#doc-runbook-orders-db.md">d</a>');
  });

  it('raw HTML is shown as text, never as markup', () => {
    const out = html('<img src=x onerror=alert(1)> and <script>alert(2)</script>');
    expect(out).not.toMatch(/<img|<script/);
  });

  it('renders the corpus subset: headings shifted, lists, fenced code, tables in a scroll box', () => {
    const out = renderToStaticMarkup(
      createElement(Markdown, { source: '# Title\n\n- one\n- **two**\n\n```sh\nrm -rf /\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n', headingShift: 1 }),
    );
    expect(out).toContain('<h2>Title</h2>');
    expect(out).toMatch(/<li>one<\/li>\s*<li><strong>two<\/strong><\/li>/);
    expect(out).toMatch(/<pre class="md-code"[^>]*><code[^>]*>rm -rf \/\n?<\/code><\/pre>/);
    expect(out).toMatch(/<div class="table-scroll"><table>/);
  });
});
