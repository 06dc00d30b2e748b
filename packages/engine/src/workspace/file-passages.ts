import { headOf } from './clip-text.ts';
import { fileLines } from './file-lines.ts';

/** Lines per embedded passage of an uploaded file, and the most characters one passage sends. */
export const FILE_PASSAGE_LINES = 40;
export const FILE_PASSAGE_MAX_CHARS = 8_000;

/** A window of a file's lines, as it is embedded and stored (migration 0023). */
export interface FilePassage {
  /** 1-based, inclusive, as read_file and a citation count lines. */
  readonly startLine: number;
  readonly endLine: number;
  readonly text: string;
}

/**
 * A file as the passages its embedding is taken over: windows of lines, in
 * order, each capped in characters (one pathological line must not make a
 * request the embedding service refuses). Blank windows are left out.
 */
export function filePassages(content: string): FilePassage[] {
  const lines = fileLines(content);
  const out: FilePassage[] = [];
  for (let i = 0; i < lines.length; i += FILE_PASSAGE_LINES) {
    const window = lines.slice(i, i + FILE_PASSAGE_LINES);
    const text = headOf(window.join('\n'), FILE_PASSAGE_MAX_CHARS);
    if (text.trim() !== '') out.push({ startLine: i + 1, endLine: i + window.length, text });
  }
  return out;
}
