import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { Answer, type AnswerClaim } from '../components/answer';

/*
 * The run page's answer as the server renders it (issue 9 E, S-049): a command drafted line by line is one block
 * that can be copied, not a list item per line with a footnote after each; steps stay a numbered list, numbered
 * as in their passage.
 */
const passage = {
  chunkId: 'restore#into-another-namespace',
  doc: 'restore',
  heading: 'Restore into another namespace',
  text: [
    'Restore with the mapping flag.',
    '',
    '1. Stop the writers.',
    '2. Run the restore:',
    '',
    '```sh',
    'velero restore create r1 \\',
    '  --from-backup b1',
    '```',
    '',
    '3. Check the pods.',
  ].join('\n'),
};
const claims = (texts: readonly string[]): AnswerClaim[] => texts.map((text) => ({ text, citations: [passage] }));
// Each footnote's <details> (which holds the whole passage, rendered) as its number alone.
const shown = (html: string) => html.replace(/<details[^>]*><summary[^>]*>(\[\d+\])<\/summary>[\s\S]*?<\/details>/g, '$1');
const render = (texts: readonly string[]) => shown(renderToStaticMarkup(createElement(Answer, { claims: claims(texts), verdict: 'answered' })));

describe('the run page’s answer', () => {
  it('prints a command’s lines as one block with one footnote, and steps as a list numbered as in the passage', () => {
    const html = render([
      'Restore with the mapping flag.',
      'Stop the writers.',
      'Run the restore:',
      'velero restore create r1 \\',
      '  --from-backup b1',
      'Check the pods.',
    ]);
    const claim = (text: string) => `<span class="claim"><span class="claim-text">${text}</span> [1] </span>`;
    expect(html.slice(0, html.indexOf('<h3'))).toBe(
      [
        '<section class="answer answer-answered" aria-label="Answer"><div class="claims">',
        `<div class="claim-prose">${claim('Restore with the mapping flag.')}</div>`,
        `<ol class="claim-list"><li value="1">${claim('Stop the writers.')}</li><li value="2">${claim('Run the restore:')}</li></ol>`,
        '<div class="claim claim-code"><pre class="claim-text"><code>velero restore create r1 \\\n  --from-backup b1</code></pre>[1]</div>',
        `<ol class="claim-list"><li value="3">${claim('Check the pods.')}</li></ol>`,
        '</div>',
      ].join(''),
    );
  });

  it('keeps a left-out step’s number, and prints a claim it cannot place as prose', () => {
    const html = shown(
      renderToStaticMarkup(
        createElement(Answer, {
          claims: [
            ...claims(['Stop the writers.', 'Check the pods.']),
            { text: 'Said elsewhere.', citations: [{ chunkId: 'other#p', doc: 'other', heading: 'Other', text: '' }] },
          ],
          verdict: 'answered',
        }),
      ),
    );
    expect(html).toContain('<li value="1"><span class="claim"><span class="claim-text">Stop the writers.</span> [1] </span></li><li value="3">');
    expect(html).toContain('<div class="claim-prose"><span class="claim"><span class="claim-text">Said elsewhere.</span> [2] </span></div>');
  });

  it('says when a cited passage is the library’s text now rather than the one the run read (S-257)', () => {
    const cite = (textFrom: 'record' | 'library' | undefined) =>
      renderToStaticMarkup(
        createElement(Answer, {
          claims: [{ text: 'Restore with the mapping flag.', citations: [{ ...passage, ...(textFrom ? { textFrom } : {}) }] }],
          verdict: 'answered',
        }),
      );
    expect(cite('library')).toContain('data-text-from="library"');
    expect(cite('library')).toContain('shown as the library reads it now, which may differ from what the run read');
    expect(cite('record')).not.toContain('data-text-from');
    expect(cite(undefined)).not.toContain('data-text-from');
  });
});
