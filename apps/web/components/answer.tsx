import { answerLayout, type Source } from '@sandscope/api';
import { chunkHref } from '@/lib/anchors';
import { AnswerBlocks } from './answer-blocks';
import { Markdown, renderInline } from '@/lib/markdown';

export interface AnswerClaim {
  readonly text: string;
  readonly citations: readonly Source[];
}

/** Unique sources in first-cited order: footnote numbers are stable across the page. */
export function numberSources(claims: readonly AnswerClaim[]): Source[] {
  const seen = new Map<string, Source>();
  for (const c of claims) for (const s of c.citations) if (!seen.has(s.chunkId)) seen.set(s.chunkId, s);
  return [...seen.values()];
}

/** The id of footnote `n`'s entry in the sources list: what the proposed action's `[n]` links to. */
export const sourceAnchor = (n: number) => `source-${n}`;

/** Resolve result-shaped claims (`citations: chunkId[]`, plus `sources`) to the page's shape. */
export function claimsFromResult(claims: readonly { text: string; citations: readonly string[] }[], sources: readonly Source[]): AnswerClaim[] {
  const byId = new Map(sources.map((s) => [s.chunkId, s]));
  return claims.map((c) => ({
    text: c.text,
    citations: c.citations.map((id) => byId.get(id) ?? { chunkId: id, doc: id.split('#')[0] ?? id, heading: '(passage not returned)', text: '' }),
  }));
}

/**
 * The answer as claims, each followed by its footnotes, laid out as they stood in their passages (answerLayout, the
 * layout the command line's text prints too): prose as a paragraph, list items as a list numbered as in the
 * passage, a command's lines as one block with its footnote after it — each line a list item of its own could not
 * be copied as a command (S-049). A footnote is a native `<details>`: it opens the cited passage in place, with
 * JavaScript or without, and links to the passage in the library on the data page.
 */
export function Answer({ claims, verdict }: { claims: readonly AnswerClaim[]; verdict: string }) {
  if (claims.length === 0) return null;
  const sources = numberSources(claims);
  const number = (id: string) => sources.findIndex((s) => s.chunkId === id) + 1;
  const cites = (group: readonly AnswerClaim[]) =>
    [...new Map(group.flatMap((c) => c.citations).map((s) => [s.chunkId, s])).values()].map((s) => (
      <details key={s.chunkId} className="cite" data-chunk={s.chunkId}>
        <summary aria-label={`Citation ${number(s.chunkId)}: ${s.heading}`}>[{number(s.chunkId)}]</summary>
        <div className="passage">
          <div className="passage-head">
            <span className="passage-heading">{s.heading}</span> <code className="chunk-id">{s.chunkId}</code>
          </div>
          {s.textFrom === 'library' ? (
            <p className="notice notice-warn" data-text-from="library">
              This run’s record kept no copy of this passage: shown as the library reads it now, which may differ from what the run read.
            </p>
          ) : null}
          <div className="passage-body">{s.text ? <Markdown source={s.text} headingShift={3} /> : <p>The agent did not return this passage’s text.</p>}</div>
          <a className="passage-link" href={chunkHref(s.chunkId)}>
            Open in the library →
          </a>
        </div>
      </details>
    ));
  const claim = (c: AnswerClaim, key: number) => (
    <span key={key} className="claim">
      <span className="claim-text">{renderInline(c.text)}</span> {cites([c])}{' '}
    </span>
  );
  const parts = answerLayout(claims, (c) => {
    const s = c.citations[0];
    return s?.text ? { id: s.chunkId, text: s.text } : undefined;
  });
  return (
    <section className={`answer answer-${verdict}`} aria-label="Answer">
      <div className="claims">
        <AnswerBlocks parts={parts} claim={claim} cites={cites} />
      </div>
      <h3 className="sources-title">Sources</h3>
      <ol className="sources">
        {sources.map((s, i) => (
          <li key={s.chunkId} id={sourceAnchor(i + 1)}>
            <a href={chunkHref(s.chunkId)}>
              <code>{s.chunkId}</code>
            </a>{' '}
            — {s.heading}
          </li>
        ))}
      </ol>
    </section>
  );
}
