import { investigationMessageSchema } from '@sandscope/api/investigations';
import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { Answer } from '../components/answer';
import { InvestigationAnswer } from '../components/investigation-answer';

/*
 * S-225 (a colleague's black-box audit of the website, 2026-12-07): every run page with a cited answer threw React's
 * hydration error #418. The server put each footnote's <details> (holding the passage's <div>s and <p>s) inside a
 * <p>; a browser's parser closes a <p> at the first such element, so the page it built was not the one React
 * rendered, and with JavaScript off each "[1]" stood on a line of its own. A <p> holds phrasing content only.
 */

/** Elements whose start tag closes an open <p> in an HTML parser (the "close a p element" start tags), and <p> itself. */
const CLOSES_P = new Set(
  'address article aside blockquote center details dialog dir div dl fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 header hgroup hr main menu nav ol p pre search section summary table ul li dd dt'.split(
    ' ',
  ),
);
const VOID = new Set('area base br col embed hr img input link meta source track wbr'.split(' '));

/** Each block element the markup puts inside a <p>, as `p > tag`: what a browser would restructure. */
function blocksInParagraphs(html: string): string[] {
  const open: string[] = [];
  const found: string[] = [];
  for (const m of html.matchAll(/<(\/?)([a-zA-Z][a-zA-Z0-9]*)[^>]*?(\/?)>/g)) {
    const [, closing, raw, selfClosing] = m;
    const tag = raw!.toLowerCase();
    if (closing) {
      const at = open.lastIndexOf(tag);
      if (at >= 0) open.length = at;
      continue;
    }
    if (CLOSES_P.has(tag) && open.includes('p')) found.push(`p > ${tag}`);
    if (!VOID.has(tag) && !selfClosing) open.push(tag);
  }
  return found;
}

const passage = {
  chunkId: 'orders-db#pool',
  doc: 'orders-db',
  heading: 'Connection pool',
  text: 'The pool holds **100** connections.\n\n- Raise it with `pgctl pool --max 150`.\n- Then watch the lag.',
};

describe('an answer’s markup is what a browser builds from it', () => {
  it('the checker finds a block inside a paragraph', () => {
    expect(blocksInParagraphs('<p>a <details><div>b</div></details></p>')).toEqual(['p > details', 'p > div']);
    expect(blocksInParagraphs('<div><span>a <details><div>b</div></details></span></div><p>c <code>d</code></p>')).toEqual([]);
  });

  it('the run page’s cited prose puts no block inside a <p>', () => {
    const html = renderToStaticMarkup(
      createElement(Answer, {
        claims: [
          { text: 'The pool holds 100 connections.', citations: [passage] },
          { text: 'Raise it with `pgctl pool --max 150`.', citations: [passage] },
          { text: 'Said elsewhere, without its passage.', citations: [{ chunkId: 'other#p', doc: 'other', heading: 'Other', text: '' }] },
        ],
        verdict: 'answered',
      }),
    );
    expect(html).toContain('<details class="cite"');
    expect(blocksInParagraphs(html)).toEqual([]);
  });

  it('an investigation’s answer puts no block inside a <p> either', () => {
    const message = investigationMessageSchema.parse({
      id: 2,
      role: 'assistant',
      text: 'orders-db ran out of connections',
      result: {
        claims: [
          { text: 'orders-db reported its pool exhausted', citations: [{ kind: 'file', path: 'app.log', startLine: 4312, endLine: 4318 }] },
          { text: 'The pool holds 100 connections', citations: [{ kind: 'passage', chunkId: passage.chunkId }] },
        ],
        citations: [{ kind: 'file', path: 'app.log', startLine: 4312, endLine: 4318 }],
        passages: [{ chunkId: passage.chunkId, doc: passage.doc, heading: passage.heading, text: passage.text }],
        toolCalls: [],
        unknown: [],
        notes: [],
        mode: 'offline',
      },
      metrics: { promptTokens: 10, completionTokens: 5, elapsedMs: 3, costUsd: 0, provider: 'offline' },
      createdAt: '2026-12-07T15:00:00.000Z',
    });
    const html = renderToStaticMarkup(createElement(InvestigationAnswer, { investigationId: 'inv-1', message }));
    expect(blocksInParagraphs(html)).toEqual([]);
  });
});
