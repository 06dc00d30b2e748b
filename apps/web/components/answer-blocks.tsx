import type { AnswerPart } from '@sandscope/api';
import { Fragment, type ReactNode } from 'react';

/** A list of consecutive items of one kind (numbered or not), or a part that stands alone. */
type AnswerBlock<C> = { readonly list: 'ol' | 'ul'; readonly items: readonly AnswerPart<C>[] } | AnswerPart<C>;

/** Consecutive items of the same kind of list become one list; other parts stand alone. */
function listsOf<C>(parts: readonly AnswerPart<C>[]): AnswerBlock<C>[] {
  const blocks: AnswerBlock<C>[] = [];
  for (const part of parts) {
    const list = part.kind === 'item' ? (part.step === null ? 'ul' : 'ol') : null;
    const last = blocks[blocks.length - 1];
    if (list && last && 'list' in last && last.list === list) blocks[blocks.length - 1] = { list, items: [...last.items, part] };
    else blocks.push(list ? { list, items: [part] } : part);
  }
  return blocks;
}

/**
 * answerLayout's parts as the page prints them — the run page and the investigation page alike, so a procedure reads
 * as its numbered steps on both: list items as a list numbered as in the passage, a command's lines as one block
 * with its citations after it, and prose as one paragraph (or, with `proseApart`, a paragraph per claim: a
 * workspace's findings on file lines are separate facts, not one sentence run).
 *
 * A paragraph is a `<div>`, not a `<p>` (S-225): a claim's footnote is a `<details>` holding the passage's blocks, which
 * a `<p>` cannot hold. The browser's parser closed the `<p>` before it, so every run page with a cited answer threw
 * React's hydration error #418, and with JavaScript off each "[1]" fell onto a line of its own between sentences.
 */
export function AnswerBlocks<C extends { readonly text: string }>({
  parts,
  claim,
  cites,
  proseApart = false,
}: {
  parts: readonly AnswerPart<C>[];
  claim: (c: C, key: number) => ReactNode;
  cites: (group: readonly C[]) => ReactNode;
  proseApart?: boolean;
}) {
  return listsOf(parts).map((block, key) => {
    if ('list' in block) {
      const items = block.items.map((item, i) => (
        <li key={i} value={item.kind === 'item' && item.step !== null ? item.step : undefined}>
          {item.claims.map(claim)}
        </li>
      ));
      return block.list === 'ol' ? (
        <ol key={key} className="claim-list">
          {items}
        </ol>
      ) : (
        <ul key={key} className="claim-list">
          {items}
        </ul>
      );
    }
    if (block.kind === 'code')
      return (
        <div key={key} className="claim claim-code">
          <pre className="claim-text">
            <code>{block.claims.map((c) => c.text).join('\n')}</code>
          </pre>
          {cites(block.claims)}
        </div>
      );
    return proseApart ? (
      <Fragment key={key}>
        {block.claims.map((c, i) => (
          <div key={i} className="claim-prose">
            {claim(c, i)}
          </div>
        ))}
      </Fragment>
    ) : (
      <div key={key} className="claim-prose">
        {block.claims.map(claim)}
      </div>
    );
  });
}
