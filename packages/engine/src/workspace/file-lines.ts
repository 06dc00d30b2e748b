/**
 * What ends a line of a file: `\r\n` (Windows), `\n` (Unix) or a bare `\r` (classic Mac OS, and some devices' and
 * serial consoles' logs). S-272: only `\n` was a break, so a log whose lines end in a bare `\r` was one line — read_file
 * returned line 1 as the whole file, search_files cited every hit as line 1, and a question about a time found no
 * line stamped in it (a line is placed by its first stamp).
 */
export const LINE_BREAK = /\r\n|\r|\n/;

/**
 * A file's lines, as every tool counts them and every citation names them (`app.log:4312`): split at each
 * LINE_BREAK, where a break at the very end ends the last line rather than starting another. The one split of a
 * file into lines — read_file, search_files, the passages a file is embedded as, and the website's file view — so
 * line n is the same line wherever it is shown. A module of its own, with nothing to import, so the website takes it
 * through the API contract instead of keeping a copy.
 */
export function fileLines(content: string): string[] {
  if (content === '') return [];
  const lines = content.split(LINE_BREAK);
  if (lines.at(-1) === '') lines.pop();
  return lines;
}
