import type { ReactNode } from 'react';
import type { CorpusChunk, CorpusDocument } from '@sandscope/api/corpus';
import { chunkAnchor, docAnchor, docHref } from '@/lib/anchors';
import { type Block, parseMarkdown, renderBlock } from '@/lib/markdown';

const resolveDoc = (doc: string) => docHref(doc);

/**
 * Where each passage starts: a passage begins at the heading it is named after
 * (the chunker keeps the first heading of a merged passage), matched in document
 * order. A passage whose heading is not found starts at the top, so every chunk
 * id still has an anchor to land on.
 */
export function passageStarts(blocks: readonly Block[], chunks: readonly CorpusChunk[]): { starts: Map<number, CorpusChunk>; unplaced: CorpusChunk[] } {
  const starts = new Map<number, CorpusChunk>();
  const unplaced: CorpusChunk[] = [];
  let from = 0;
  const norm = (s: string) => s.replace(/[`*_]/g, '').trim().toLowerCase();
  for (const chunk of chunks) {
    let found = -1;
    for (let i = from; i < blocks.length; i++) {
      const b = blocks[i]!;
      if (b.type === 'heading' && norm(b.text) === norm(chunk.heading) && !starts.has(i)) {
        found = i;
        break;
      }
    }
    if (found < 0) unplaced.push(chunk);
    else {
      starts.set(found, chunk);
      from = found + 1;
    }
  }
  return { starts, unplaced };
}

/** One corpus document, rendered safely, with a `<section id="chunk-…">` per passage so citations land on it. */
export function CorpusDocumentView({ document, chunks }: { document: CorpusDocument; chunks: readonly CorpusChunk[] }) {
  const blocks = parseMarkdown(document.text);
  const { starts, unplaced } = passageStarts(blocks, chunks);
  const sections: { chunk: CorpusChunk | null; nodes: ReactNode[] }[] = [{ chunk: null, nodes: [] }];
  blocks.forEach((block, i) => {
    const chunk = starts.get(i);
    if (chunk) sections.push({ chunk, nodes: [] });
    // the document's title is the article's header already; its h1 would only repeat it
    if (block.type === 'heading' && block.level === 1 && block.text.trim() === document.title.trim()) return;
    sections[sections.length - 1]!.nodes.push(renderBlock(block, i, { resolveDoc, headingShift: 1 }));
  });
  return (
    <article className="corpus-doc" id={docAnchor(document.doc)} aria-labelledby={`${docAnchor(document.doc)}-title`}>
      <header className="doc-head">
        <h2 id={`${docAnchor(document.doc)}-title`}>{document.title}</h2>
        <p className="doc-meta">
          <code>{document.doc}</code> · {document.words} words · {chunks.length} passages
        </p>
      </header>
      {unplaced.map((c) => (
        <span key={c.id} id={chunkAnchor(c.id)} className="anchor-only" data-chunk={c.id} />
      ))}
      {sections.map((s, i) =>
        s.chunk ? (
          <section key={s.chunk.id} id={chunkAnchor(s.chunk.id)} className="passage-section" data-chunk={s.chunk.id}>
            <a className="chunk-tag" href={`#${chunkAnchor(s.chunk.id)}`} title="Link to this passage">
              {s.chunk.id}
            </a>
            {s.nodes}
          </section>
        ) : s.nodes.length > 0 ? (
          <div key={`pre${i}`} className="doc-lead">
            {s.nodes}
          </div>
        ) : null,
      )}
    </article>
  );
}
