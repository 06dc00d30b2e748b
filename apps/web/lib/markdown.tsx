import type { Heading as MdHeading, Root, RootContent } from 'mdast';
import type { ComponentProps, ReactNode } from 'react';
import ReactMarkdown, { type Components } from 'react-markdown';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified } from 'unified';

/*
 * Markdown for the corpus, claims and remedies, rendered by react-markdown
 * (remark, with GitHub tables): every piece of text becomes a React text node,
 * raw HTML is shown as text (no rehype-raw), and nothing is ever passed to
 * dangerouslySetInnerHTML. Links keep only http(s), in-page and site-relative
 * targets and links to corpus documents — a `javascript:` or `data:` URL is
 * rendered as its text. This replaced a hand-written renderer whose own link
 * check (`safeHref`) had no test.
 */

export interface InlineOptions {
  /** Turn a link to another corpus document (`runbook-x.md`) into a page link. */
  readonly resolveDoc?: (doc: string) => string | null;
}

export interface RenderOptions extends InlineOptions {
  /** Heading levels shift by this much (a document's h1 renders as h2 inside a page). */
  readonly headingShift?: number;
}

/** Where a link may point; null: render its text only. */
export function safeHref(raw: string, resolveDoc?: (doc: string) => string | null): string | null {
  const href = raw.trim();
  if (/^https?:\/\//i.test(href)) return href;
  if (href.startsWith('#')) return href;
  const doc = /^(?:\.\/)?([\w./-]+\.md)(#[\w-]*)?$/i.exec(href);
  if (doc && resolveDoc) return resolveDoc(doc[1]!);
  if (/^\/(?!\/)[\w./?=&#%-]*$/.test(href)) return href;
  return null;
}

function Link({ href, children }: ComponentProps<'a'>) {
  if (!href) return <>{children}</>;
  return (
    <a href={href} {...(/^https?:/i.test(href) ? { rel: 'noopener noreferrer nofollow' } : {})}>
      {children}
    </a>
  );
}

function shifted(level: number, shift: number): 'h1' | 'h2' | 'h3' | 'h4' | 'h5' | 'h6' {
  return `h${Math.min(6, Math.max(1, level + shift))}` as 'h1' | 'h2' | 'h3' | 'h4' | 'h5' | 'h6';
}

function components(shift: number): Components {
  const heading = (level: number) => {
    const Tag = shifted(level, shift);
    return ({ children }: ComponentProps<'h1'>) => <Tag>{children}</Tag>;
  };
  return {
    a: Link,
    h1: heading(1),
    h2: heading(2),
    h3: heading(3),
    h4: heading(4),
    h5: heading(5),
    h6: heading(6),
    pre: ({ children }) => <pre className="md-code">{children}</pre>,
    table: ({ children }) => (
      <div className="table-scroll">
        <table>{children}</table>
      </div>
    ),
  };
}

// react-markdown calls urlTransform for every URL; '' drops the attribute, and Link then renders only the text.
const urlTransformOf = (resolveDoc: InlineOptions['resolveDoc']) => (url: string) => safeHref(url, resolveDoc) ?? '';

/** A whole document, escaped. */
export function Markdown({ source, resolveDoc, headingShift = 0 }: { source: string } & RenderOptions) {
  return (
    <ReactMarkdown remarkPlugins={[remarkGfm]} urlTransform={urlTransformOf(resolveDoc)} components={components(headingShift)}>
      {source}
    </ReactMarkdown>
  );
}

const INLINE_ELEMENTS = ['p', 'code', 'strong', 'em', 'del', 'a', 'br'];

/** Inline markdown (a claim, a remedy): `code`, **bold**, *italic*, links; any block syntax is kept as its text. */
export function renderInline(text: string, options: InlineOptions = {}): ReactNode {
  return (
    <ReactMarkdown
      remarkPlugins={[remarkGfm]}
      urlTransform={urlTransformOf(options.resolveDoc)}
      allowedElements={INLINE_ELEMENTS}
      unwrapDisallowed
      components={{ a: Link, p: ({ children }) => <>{children}</> }}
    >
      {text}
    </ReactMarkdown>
  );
}

/** A top-level block of a document: its kind, its source text, and for a heading its level and plain text. */
export interface Block {
  readonly type: RootContent['type'];
  readonly source: string;
  readonly level?: number;
  readonly text: string;
}

const plain = (node: RootContent): string =>
  'value' in node && typeof node.value === 'string' ? node.value : 'children' in node ? (node.children as RootContent[]).map(plain).join('') : '';

/**
 * The document's top-level blocks, parsed by remark exactly as react-markdown
 * parses them, so a page can place an anchor at the heading each passage starts at.
 */
export function parseMarkdown(source: string): Block[] {
  const tree = unified().use(remarkParse).use(remarkGfm).parse(source) as Root;
  return tree.children.flatMap((node) => {
    const start = node.position?.start.offset;
    const end = node.position?.end.offset;
    if (start === undefined || end === undefined || node.type === 'definition') return [];
    const block = { type: node.type, source: source.slice(start, end), text: plain(node) };
    return [node.type === 'heading' ? { ...block, level: (node as MdHeading).depth } : block];
  });
}

/** One block, rendered as part of its document. */
export function renderBlock(block: Block, index: number, options: RenderOptions = {}): ReactNode {
  return <Markdown key={`b${index}`} source={block.source} {...options} />;
}
