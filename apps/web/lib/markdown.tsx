import { Fragment, type ReactNode } from 'react';

/*
 * A small, safe markdown renderer for the corpus: headings, paragraphs, lists,
 * fenced code, tables, block quotes, rules; inline code, bold, italic, links.
 * Every piece of text becomes a React text node, so it is escaped; nothing is
 * ever passed to dangerouslySetInnerHTML. Links keep only http(s), in-page and
 * relative targets — a `javascript:` URL is rendered as plain text.
 */

export type Block =
  | { readonly type: 'heading'; readonly level: number; readonly text: string }
  | { readonly type: 'paragraph'; readonly text: string }
  | { readonly type: 'list'; readonly ordered: boolean; readonly start: number; readonly items: readonly string[] }
  | { readonly type: 'code'; readonly lang: string; readonly text: string }
  | { readonly type: 'table'; readonly header: readonly string[]; readonly align: readonly ('left' | 'right' | 'center' | null)[]; readonly rows: readonly (readonly string[])[] }
  | { readonly type: 'quote'; readonly text: string }
  | { readonly type: 'rule' };

const HEADING = /^(#{1,6})\s+(.+?)\s*#*\s*$/;
const FENCE = /^\s*(```|~~~)\s*([\w+-]*)\s*$/;
const BULLET = /^\s*[-*+]\s+(.*)$/;
const ORDERED = /^\s*(\d{1,9})[.)]\s+(.*)$/;
const RULE = /^\s*([-*_])(\s*\1){2,}\s*$/;
const TABLE_SEPARATOR = /^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$/;

function splitRow(line: string): string[] {
  let s = line.trim();
  if (s.startsWith('|')) s = s.slice(1);
  if (s.endsWith('|') && !s.endsWith('\\|')) s = s.slice(0, -1);
  const cells: string[] = [];
  let current = '';
  let inCode = false;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i]!;
    if (ch === '\\' && s[i + 1] === '|') {
      current += '|';
      i++;
    } else if (ch === '`') {
      inCode = !inCode;
      current += ch;
    } else if (ch === '|' && !inCode) {
      cells.push(current.trim());
      current = '';
    } else current += ch;
  }
  cells.push(current.trim());
  return cells;
}

/** Block structure of a markdown document. */
export function parseMarkdown(source: string): Block[] {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  let i = 0;
  const isBlank = (l: string | undefined) => l === undefined || l.trim() === '';
  const startsBlock = (l: string, next: string | undefined) =>
    HEADING.test(l) || FENCE.test(l) || BULLET.test(l) || ORDERED.test(l) || RULE.test(l) || l.trimStart().startsWith('>') || (l.includes('|') && next !== undefined && TABLE_SEPARATOR.test(next) && next.includes('-'));

  while (i < lines.length) {
    const line = lines[i]!;
    if (isBlank(line)) {
      i++;
      continue;
    }
    const fence = FENCE.exec(line);
    if (fence) {
      const body: string[] = [];
      i++;
      while (i < lines.length && !new RegExp(`^\\s*${fence[1]}\\s*$`).test(lines[i]!)) body.push(lines[i++]!);
      i++; // closing fence (or end of document)
      blocks.push({ type: 'code', lang: fence[2] ?? '', text: body.join('\n') });
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      blocks.push({ type: 'heading', level: heading[1]!.length, text: heading[2]! });
      i++;
      continue;
    }
    if (RULE.test(line)) {
      blocks.push({ type: 'rule' });
      i++;
      continue;
    }
    const next = lines[i + 1];
    if (line.includes('|') && next !== undefined && TABLE_SEPARATOR.test(next) && next.includes('-')) {
      const header = splitRow(line);
      const align = splitRow(next).map((c) => (c.startsWith(':') && c.endsWith(':') ? 'center' : c.endsWith(':') ? 'right' : c.startsWith(':') ? 'left' : null));
      const rows: string[][] = [];
      i += 2;
      while (i < lines.length && !isBlank(lines[i]) && lines[i]!.includes('|')) {
        const cells = splitRow(lines[i++]!);
        rows.push(header.map((_, c) => cells[c] ?? ''));
      }
      blocks.push({ type: 'table', header, align: header.map((_, c) => align[c] ?? null), rows });
      continue;
    }
    if (line.trimStart().startsWith('>')) {
      const body: string[] = [];
      while (i < lines.length && lines[i]!.trimStart().startsWith('>')) body.push(lines[i++]!.trimStart().replace(/^>\s?/, ''));
      blocks.push({ type: 'quote', text: body.join(' ') });
      continue;
    }
    const bullet = BULLET.exec(line);
    const ordered = ORDERED.exec(line);
    if (bullet || ordered) {
      const isOrdered = !bullet;
      const items: string[] = [];
      while (i < lines.length) {
        const l = lines[i]!;
        const m = isOrdered ? ORDERED.exec(l) : BULLET.exec(l);
        if (m) {
          items.push((isOrdered ? m[2] : m[1])!);
          i++;
        } else if (!isBlank(l) && /^\s{2,}\S/.test(l) && items.length > 0) {
          items[items.length - 1] += ` ${l.trim()}`; // a continuation line of the item
          i++;
        } else break;
      }
      blocks.push({ type: 'list', ordered: isOrdered, start: isOrdered ? Number(ordered![1]) : 1, items });
      continue;
    }
    const body: string[] = [line.trim()];
    i++;
    while (i < lines.length && !isBlank(lines[i]) && !startsBlock(lines[i]!, lines[i + 1])) body.push(lines[i++]!.trim());
    blocks.push({ type: 'paragraph', text: body.join(' ') });
  }
  return blocks;
}

/** Where a link may point. Anything else renders as text. */
export function safeHref(raw: string, resolveDoc?: (doc: string) => string | null): string | null {
  const href = raw.trim();
  if (/^https?:\/\//i.test(href)) return href;
  if (href.startsWith('#')) return href;
  const doc = /^(?:\.\/)?([\w./-]+\.md)(#[\w-]*)?$/i.exec(href);
  if (doc && resolveDoc) return resolveDoc(doc[1]!);
  if (/^\/(?!\/)[\w./?=&#%-]*$/.test(href)) return href;
  return null;
}

export interface InlineOptions {
  /** Turn a link to another corpus document (`runbook-x.md`) into a page link. */
  readonly resolveDoc?: (doc: string) => string | null;
}

/** Inline markdown to React nodes: `code`, **bold**, *italic* / _italic_, [text](href). */
export function renderInline(text: string, options: InlineOptions = {}, keyPrefix = 'i'): ReactNode[] {
  const out: ReactNode[] = [];
  let plain = '';
  let k = 0;
  const flush = () => {
    if (plain) out.push(plain);
    plain = '';
  };
  let i = 0;
  while (i < text.length) {
    const rest = text.slice(i);
    let m: RegExpExecArray | null;
    if (rest[0] === '\\' && rest.length > 1 && /[\\`*_[\]()#|>-]/.test(rest[1]!)) {
      plain += rest[1];
      i += 2;
    } else if ((m = /^(`+)([\s\S]*?[^`])\1(?!`)/.exec(rest))) {
      flush();
      out.push(<code key={`${keyPrefix}${k++}`}>{m[2]!.trim()}</code>);
      i += m[0].length;
    } else if ((m = /^\*\*(?=\S)([\s\S]*?\S)\*\*/.exec(rest)) || (m = /^__(?=\S)([\s\S]*?\S)__(?![A-Za-z0-9])/.exec(rest))) {
      flush();
      out.push(<strong key={`${keyPrefix}${k++}`}>{renderInline(m[1]!, options, `${keyPrefix}${k}.`)}</strong>);
      i += m[0].length;
    } else if ((m = /^\*(?=\S)([^*]*?\S)\*/.exec(rest)) || (/(^|[^A-Za-z0-9])$/.test(text.slice(0, i)) && (m = /^_(?=\S)([^_]*?\S)_(?![A-Za-z0-9])/.exec(rest)))) {
      flush();
      out.push(<em key={`${keyPrefix}${k++}`}>{renderInline(m[1]!, options, `${keyPrefix}${k}.`)}</em>);
      i += m[0].length;
    } else if ((m = /^\[([^\]]+)\]\(([^)\s]+)\)/.exec(rest))) {
      flush();
      const href = safeHref(m[2]!, options.resolveDoc);
      const label = renderInline(m[1]!, options, `${keyPrefix}${k}.`);
      out.push(
        href ? (
          <a key={`${keyPrefix}${k++}`} href={href} {...(/^https?:/i.test(href) ? { rel: 'noopener noreferrer nofollow' } : {})}>
            {label}
          </a>
        ) : (
          <Fragment key={`${keyPrefix}${k++}`}>{label}</Fragment>
        ),
      );
      i += m[0].length;
    } else {
      plain += rest[0];
      i += 1;
    }
  }
  flush();
  return out;
}

export interface RenderOptions extends InlineOptions {
  /** The id for a heading block, by its index in the block list (chunk anchors hang here). */
  readonly headingId?: (index: number) => string | undefined;
  /** Heading levels shift by this much (a document's h1 renders as h2 inside a page). */
  readonly headingShift?: number;
}

function Heading({ level, id, children }: { level: number; id?: string; children: ReactNode }) {
  const l = Math.min(6, Math.max(1, level));
  const Tag = `h${l}` as 'h1' | 'h2' | 'h3' | 'h4' | 'h5' | 'h6';
  return <Tag {...(id ? { id } : {})}>{children}</Tag>;
}

export function renderBlock(block: Block, index: number, options: RenderOptions = {}): ReactNode {
  const key = `b${index}`;
  switch (block.type) {
    case 'heading': {
      const id = options.headingId?.(index);
      return (
        <Heading key={key} level={block.level + (options.headingShift ?? 0)} {...(id ? { id } : {})}>
          {renderInline(block.text, options, `${key}.`)}
        </Heading>
      );
    }
    case 'paragraph':
      return <p key={key}>{renderInline(block.text, options, `${key}.`)}</p>;
    case 'list': {
      const items = block.items.map((item, j) => <li key={j}>{renderInline(item, options, `${key}.${j}.`)}</li>);
      return block.ordered ? (
        <ol key={key} {...(block.start !== 1 ? { start: block.start } : {})}>
          {items}
        </ol>
      ) : (
        <ul key={key}>{items}</ul>
      );
    }
    case 'code':
      return (
        <pre key={key} className="md-code" {...(block.lang ? { 'data-lang': block.lang } : {})}>
          <code>{block.text}</code>
        </pre>
      );
    case 'table':
      return (
        <div key={key} className="table-scroll">
          <table>
            <thead>
              <tr>
                {block.header.map((h, c) => (
                  <th key={c} style={block.align[c] ? { textAlign: block.align[c]! } : undefined}>
                    {renderInline(h, options, `${key}.h${c}.`)}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {block.rows.map((row, r) => (
                <tr key={r}>
                  {row.map((cell, c) => (
                    <td key={c} style={block.align[c] ? { textAlign: block.align[c]! } : undefined}>
                      {renderInline(cell, options, `${key}.${r}.${c}.`)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      );
    case 'quote':
      return <blockquote key={key}>{renderInline(block.text, options, `${key}.`)}</blockquote>;
    case 'rule':
      return <hr key={key} />;
  }
}

/** A whole document, escaped. */
export function Markdown({ source, ...options }: { source: string } & RenderOptions) {
  return <>{parseMarkdown(source).map((b, i) => renderBlock(b, i, options))}</>;
}
