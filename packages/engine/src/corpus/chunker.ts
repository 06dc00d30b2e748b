import type { Chunk, SourceDocument } from '../types.ts';
import { fenceAfter, HEADING } from './markdown-lines.ts';
import { withoutMarkdownExtension } from './markdown-name.ts';

/** Passages shorter than this merge with a neighbour (seed §Four: "min 200 chars, merged below that"). */
export const MIN_PASSAGE_CHARS = 200;

interface Section {
  heading: string;
  /** Headings of the sections this one stands under (not the document title), outermost first. */
  path: string[];
  /** The heading's markdown marker (`##`), kept so a section merged into another stays a heading there. */
  marker: string;
  body: string[];
}

/** Lower-case, punctuation to hyphens: `Connection pool ceiling` → `connection-pool-ceiling`. */
export function slugify(text: string): string {
  return (
    text
      .toLowerCase()
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'section'
  );
}

// YAML between `---` lines (Jekyll, Docusaurus, most Hugo sites) or TOML between `+++` lines (Hugo): a CoreDNS
// page's `+++ title = "health" … date = "2022-09-08T18:42:54" +++` was its first passage's text, and its first
// "claim" (S-119).
const FRONT_MATTER = /^(---|\+\+\+)\r?\n([\s\S]*?)\r?\n\1[ \t]*(?:\r?\n|$)/;
const TITLE = /^title\s*[:=]\s*["']?(.+?)["']?\s*$/m;

/**
 * A document without its front matter (`---\ntitle: …\n---`, `+++\ntitle = "…"\n+++`), which many
 * documentation sites put above the markdown; its title is kept apart.
 */
export function splitFrontMatter(text: string): { body: string; title: string | null } {
  // A UTF-8 byte-order mark (Windows editors write one) is no text: left at the start, it hid the front matter
  // and the first heading, both then indexed as the first passage's prose.
  const unmarked = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const m = FRONT_MATTER.exec(unmarked);
  if (!m) return { body: unmarked, title: null };
  const title = TITLE.exec(m[2]!)?.[1]?.trim() ?? null;
  return { body: unmarked.slice(m[0].length), title };
}

/**
 * The document's title: its first level-one heading as a reader of the page sees it — outside a code fence and an
 * HTML comment — else its front matter's title, else its file name. A shell comment in a fence (`# The cri plugin
 * uses the "k8s.io" containerd namespace.`) once titled its whole document, in every citation of it (S-078).
 */
export function documentTitle(doc: string, text: string): string {
  const { body, title } = splitFrontMatter(text);
  let fence: string | null = null;
  for (const line of withoutComments(body.replace(/\r\n?/g, '\n')).split('\n')) {
    const was = fence;
    fence = fenceAfter(fence, line);
    const m = was === null && fence === null ? HEADING.exec(line) : null;
    if (m?.[1] === '#') return m[2]!.trim();
  }
  return title ?? withoutMarkdownExtension(doc);
}

/**
 * The markdown without its HTML comments: what a reader of the rendered page sees. A commented-out draft
 * ("<!-- ## FAQ … What happens if every node fails? TODO -->") is not documentation; kept, its question
 * matched the user's word for word and its placeholder was offered as the library's answer (DEFECT_LOG
 * S-041). A comment inside a code fence is code, and stays.
 */
export function withoutComments(text: string): string {
  const out: string[] = [];
  let fence: string | null = null;
  let inComment = false;
  for (const line of text.split('\n')) {
    const was = fence;
    if (!inComment) fence = fenceAfter(fence, line);
    if (was !== null || fence !== null) {
      out.push(line);
      continue;
    }
    const open = inComment;
    const blank = !open && !line.trim();
    let rest = line;
    let kept = '';
    for (;;) {
      if (inComment) {
        const end = rest.indexOf('-->');
        if (end < 0) break;
        rest = rest.slice(end + 3);
        inComment = false;
      }
      const start = rest.indexOf('<!--');
      if (start < 0) {
        kept += rest;
        break;
      }
      kept += rest.slice(0, start);
      rest = rest.slice(start + 4);
      inComment = true;
    }
    // A line that was all comment leaves nothing, not a blank that could split a paragraph; a line without
    // one stays as written (two trailing spaces are a line break).
    if (!open && kept === line) out.push(line);
    else if (kept.trim() || blank) out.push(kept.trimEnd());
  }
  return out.join('\n');
}

function sectionsOf(text: string, title: string): Section[] {
  const sections: Section[] = [];
  let current: Section = { heading: title, path: [], marker: '#', body: [] };
  // Open headings by level: a "How to investigate" under "### MimirIngesterReachingSeriesLimit" is about that alert.
  const open: { level: number; heading: string }[] = [];
  let fence: string | null = null;
  for (const line of withoutComments(splitFrontMatter(text).body.replace(/\r\n?/g, '\n')).split('\n')) {
    const was = fence;
    fence = fenceAfter(fence, line);
    const m = was === null && fence === null ? HEADING.exec(line) : null;
    if (m) {
      const level = m[1]!.length;
      if (level === 1 && sections.length === 0 && current.body.every((l) => !l.trim())) {
        current = { heading: m[2]!, path: [], marker: m[1]!, body: [] };
        continue;
      }
      while (open.length && open[open.length - 1]!.level >= level) open.pop();
      sections.push(current);
      current = { heading: m[2]!, path: open.filter((o) => o.level > 1).map((o) => o.heading), marker: m[1]!, body: [] };
      open.push({ level, heading: m[2]! });
    } else {
      current.body.push(line);
    }
  }
  sections.push(current);
  return sections
    .map((s) => ({ heading: s.heading, path: s.path, marker: s.marker, body: [s.body.join('\n').trim()] }))
    .filter((s, i) => i > 0 || s.body[0] !== '' || sections.length === 1);
}

const sizeOf = (s: Section) => s.heading.length + s.body.join('\n\n').length;

/**
 * Heading-aligned chunking: a passage is a heading and its body. A section under
 * MIN_PASSAGE_CHARS merges forward into the next one (a short section is usually
 * the lead-in to what follows); the last one merges backward. The merged passage
 * keeps the first heading, so ids stay stable when a sub-section grows.
 */
export function chunkDocument(source: SourceDocument): Chunk[] {
  const sections = sectionsOf(source.text, source.title);
  const merged: Section[] = [];
  let pending: Section | null = null;
  // A merged section keeps its heading as a markdown heading: it is context for the
  // sentences under it (a value stated under "Topics carried by events-bus" is about events-bus).
  const asText = (s: Section) => `${s.marker} ${s.heading}\n\n${s.body.join('\n\n')}`.trim();
  for (const s of sections) {
    const section: Section = pending ? { ...pending, body: [...pending.body, asText(s)] } : s;
    pending = null;
    if (sizeOf(section) < MIN_PASSAGE_CHARS) pending = section;
    else merged.push(section);
  }
  if (pending) {
    const last = merged.pop();
    merged.push(last ? { ...last, body: [...last.body, asText(pending)] } : pending);
  }
  const base = source.doc.replace(/\.md$/i, '');
  const seen = new Map<string, number>();
  return merged
    .map((s) => ({ heading: s.heading, path: s.path, level: s.marker.length, text: s.body.filter(Boolean).join('\n\n').trim() }))
    .filter((s) => s.text.length > 0 || merged.length === 1)
    .map((s) => {
      const slug = slugify(s.heading);
      const n = (seen.get(slug) ?? 0) + 1;
      seen.set(slug, n);
      return {
        id: `${base}#${n === 1 ? slug : `${slug}-${n}`}`,
        doc: source.doc,
        docTitle: source.title,
        heading: s.heading,
        level: s.level,
        ...(s.path.length ? { path: s.path } : {}),
        text: s.text,
      };
    });
}

export function chunkCorpus(documents: readonly SourceDocument[]): Chunk[] {
  return documents.flatMap(chunkDocument);
}
