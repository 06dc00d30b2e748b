import { clipText } from './clip-text.ts';
import { fileLines } from './file-lines.ts';
import type { WorkspaceFiles } from './workspace-files.ts';

export interface SearchHit {
  readonly path: string;
  /** 1-based, as read_file's offset and a citation count it. */
  readonly line: number;
  /** The line, cut to `maxLineChars` (a search result is a pointer; read_file reads the line). */
  readonly text: string;
  /**
   * `text`: the line contains the pattern. `similar`: it does not, but its
   * embedding is near the pattern's — the same thing in other words
   * ("throttled" for "throttling") — with the cosine in `similarity`.
   */
  readonly match: 'text' | 'similar';
  readonly similarity?: number;
}

export interface SearchFilesResult {
  readonly pattern: string;
  readonly hits: readonly SearchHit[];
  /** Every matching line, including those past `maxHits`. */
  readonly totalHits: number;
  readonly filesSearched: number;
  readonly notice: string | null;
  /** Why lines were not also searched by similarity (the embedder is down); null when they were, or nothing is embedded. */
  readonly similarUnavailable: string | null;
}

export interface SearchFilesOptions {
  /** A file, or a folder prefix (`logs/`), to search within; resolved already. Default: every file. */
  readonly path?: string;
  readonly maxHits?: number;
  readonly maxLineChars?: number;
  /** Most lines found by similarity, listed after the literal hits. */
  readonly maxSimilar?: number;
}

/**
 * Lines of the workspace's files containing `pattern`, case-insensitively, as
 * a literal string. Not a regular expression on purpose: a pattern comes from
 * a model or a person and the files are logs of any size, so a catastrophic
 * backtracking pattern must not be able to stall a turn.
 *
 * Then, where the files are embedded, the lines nearest the pattern in
 * meaning that the literal search missed: an engineer asks about "throttling"
 * and the log says "throttled", and a literal search alone answered that no
 * line mentions it.
 */
export async function searchFiles(files: WorkspaceFiles, pattern: string, options: SearchFilesOptions = {}): Promise<SearchFilesResult> {
  const maxHits = options.maxHits ?? 50;
  const maxLineChars = options.maxLineChars ?? 400;
  const needle = pattern.toLowerCase();
  const listed = await files.list();
  const scope = options.path;
  const chosen = scope === undefined ? listed : listed.filter((f) => f.path === scope || f.path.startsWith(`${scope.replace(/\/$/, '')}/`));
  const hits: SearchHit[] = [];
  let totalHits = 0;
  for (const file of chosen) {
    const content = await files.read(file.path);
    if (content === null) continue;
    fileLines(content).forEach((text, i) => {
      if (!text.toLowerCase().includes(needle)) return;
      totalHits++;
      if (hits.length < maxHits) hits.push({ path: file.path, line: i + 1, text: cut(text, maxLineChars), match: 'text' });
    });
  }
  let similarUnavailable: string | null = null;
  if (files.similarLines && chosen.length > 0) {
    const similar = await files.similarLines(pattern, { k: options.maxSimilar ?? 5, ...(scope !== undefined ? { path: scope } : {}) });
    if (!similar.ok) similarUnavailable = similar.reason;
    else {
      const literal = new Set(hits.map((h) => `${h.path}\u0000${h.line}`));
      for (const l of similar.lines) {
        if (l.text.toLowerCase().includes(needle) || literal.has(`${l.path}\u0000${l.line}`)) continue;
        hits.push({ path: l.path, line: l.line, text: cut(l.text, maxLineChars), match: 'similar', similarity: Math.round(l.similarity * 1000) / 1000 });
      }
    }
  }
  const notice =
    totalHits > hits.length ? `[${totalHits} matching lines; the first ${hits.length} are shown. Narrow the pattern, or pass path to search one file.]` : null;
  return { pattern, hits, totalHits, filesSearched: chosen.length, notice, similarUnavailable };
}

function cut(text: string, max: number): string {
  return clipText(text, max);
}
