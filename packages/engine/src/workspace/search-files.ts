import { fileLines } from './read-file.ts';
import type { WorkspaceFiles } from './workspace-files.ts';

export interface SearchHit {
  readonly path: string;
  /** 1-based, as read_file's offset and a citation count it. */
  readonly line: number;
  /** The line, cut to `maxLineChars` (a search result is a pointer; read_file reads the line). */
  readonly text: string;
}

export interface SearchFilesResult {
  readonly pattern: string;
  readonly hits: readonly SearchHit[];
  /** Every matching line, including those past `maxHits`. */
  readonly totalHits: number;
  readonly filesSearched: number;
  readonly notice: string | null;
}

export interface SearchFilesOptions {
  /** A file, or a folder prefix (`logs/`), to search within; resolved already. Default: every file. */
  readonly path?: string;
  readonly maxHits?: number;
  readonly maxLineChars?: number;
}

/**
 * Lines of the workspace's files containing `pattern`, case-insensitively, as
 * a literal string. Not a regular expression on purpose: a pattern comes from
 * a model or a person and the files are logs of any size, so a catastrophic
 * backtracking pattern must not be able to stall a turn.
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
      if (hits.length < maxHits) hits.push({ path: file.path, line: i + 1, text: text.length > maxLineChars ? `${text.slice(0, maxLineChars)}…` : text });
    });
  }
  const notice =
    totalHits > hits.length
      ? `[${totalHits} matching lines; the first ${hits.length} are shown. Narrow the pattern, or pass path to search one file.]`
      : null;
  return { pattern, hits, totalHits, filesSearched: chosen.length, notice };
}
