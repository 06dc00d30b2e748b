import { headOf } from './clip-text.ts';
import { fileLines } from './file-lines.ts';

/**
 * Seed #20: read_file used to return the whole file, and one large log blew the
 * model's context window. Now a read is a window of lines — `offset` (the first
 * line, 1-based, as citations count) and `limit` (how many) — under two caps
 * sized for a large-context model: READ_FILE_MAX_LINES lines and
 * READ_FILE_MAX_CHARS characters of returned text (the agent's config, one zod
 * schema). Over a cap the window is cut and a notice says how much was elided
 * and how to read on, so the agent pages instead of guessing.
 */
export interface ReadFileCaps {
  /** READ_FILE_MAX_LINES: most lines one read returns (default 2000). */
  readonly maxLines: number;
  /** READ_FILE_MAX_CHARS: most characters one read returns, line numbers included (default 200000 ≈ 50k tokens). */
  readonly maxChars: number;
  /** What set `maxChars` when it is not READ_FILE_MAX_CHARS, as a cut read's notice names it. */
  readonly maxCharsBy?: string;
}

/** The least a read returns however little budget is left: the config's own floor for READ_FILE_MAX_CHARS. */
export const READ_FILE_MIN_CHARS = 100;

export const DEFAULT_READ_FILE_CAPS: ReadFileCaps = { maxLines: 2000, maxChars: 200_000 };

export interface ReadFileRequest {
  /** First line to return, 1-based (default 1). */
  readonly offset?: number;
  /** Lines to return (default, and at most, READ_FILE_MAX_LINES). */
  readonly limit?: number;
}

export interface ReadFileWindow {
  readonly path: string;
  readonly totalLines: number;
  /** First and last line returned (1-based, inclusive); endLine < startLine when nothing was returned. */
  readonly startLine: number;
  readonly endLine: number;
  /** The lines returned, as they are in the file (a pathological line cut to the char cap). */
  readonly lines: readonly string[];
  /** What the agent reads: `N<tab>line` per line, then the notice. */
  readonly text: string;
  /** A cap cut the window (lines or characters). */
  readonly truncated: boolean;
  /** How much was elided and how to read on; null when the window reached the end of the file uncut. */
  readonly notice: string | null;
}

/**
 * The window of `content` a read returns. Pure: the caller has resolved the
 * path and fetched the content. A bad offset or limit is the caller's to
 * refuse (the tool's schema does); here they are taken as given.
 */
export function readFileWindow(path: string, content: string, request: ReadFileRequest, caps: ReadFileCaps = DEFAULT_READ_FILE_CAPS): ReadFileWindow {
  const all = fileLines(content);
  const total = all.length;
  const charCap = caps.maxCharsBy ? `${caps.maxCharsBy}: ${caps.maxChars} characters` : `READ_FILE_MAX_CHARS=${caps.maxChars}`;
  const offset = Math.max(1, Math.floor(request.offset ?? 1));
  const asked = Math.max(1, Math.floor(request.limit ?? caps.maxLines));
  const limit = Math.min(asked, caps.maxLines);
  const lineCapped = asked > caps.maxLines || (request.limit === undefined && offset - 1 + limit < total);

  if (offset > total) {
    const notice = total === 0 ? `${path} is empty.` : `${path} has ${total} lines; offset ${offset} is past its end. Read from offset=1 to ${total}.`;
    return { path, totalLines: total, startLine: offset, endLine: offset - 1, lines: [], text: notice, truncated: false, notice };
  }

  const wanted = all.slice(offset - 1, offset - 1 + limit);
  const shown: string[] = [];
  let out = '';
  let cutLine: { line: number; length: number; kept: number } | null = null;
  for (let i = 0; i < wanted.length; i++) {
    const n = offset + i;
    const formatted = `${n}\t${wanted[i]}\n`;
    if (out.length + formatted.length <= caps.maxChars) {
      out += formatted;
      shown.push(wanted[i]!);
      continue;
    }
    if (shown.length === 0) {
      // One line longer than the whole budget (a minified bundle, a base64 blob): its head, not nothing.
      const room = Math.max(0, caps.maxChars - `${n}\t`.length - 1);
      const kept = headOf(wanted[i]!, room);
      out += `${n}\t${kept}\n`;
      shown.push(kept);
      cutLine = { line: n, length: wanted[i]!.length, kept: kept.length };
    }
    break;
  }

  const startLine = offset;
  const endLine = offset + shown.length - 1;
  const charCapped = shown.length < wanted.length || cutLine !== null;
  const notices: string[] = [];
  if (cutLine) {
    notices.push(
      `line ${cutLine.line} is ${cutLine.length} characters; the first ${cutLine.kept} are shown and ${cutLine.length - cutLine.kept} elided ` +
        `(${charCap}). A line cannot be paged: use search_files to find text within it.`,
    );
  }
  const after = total - endLine;
  if (after > 0) {
    const elidedChars = all.slice(endLine).reduce((sum, l) => sum + l.length + 1, 0);
    const cap = charCapped ? ` (${charCap})` : lineCapped ? ` (READ_FILE_MAX_LINES=${caps.maxLines})` : '';
    notices.push(
      `Showed lines ${startLine}-${endLine} of ${total}${cap}; ${after} more line${after === 1 ? '' : 's'} (${elidedChars} characters) not shown. ` +
        `To read on, call read_file with path="${path}", offset=${endLine + 1}${charCapped ? ' and a smaller limit' : ''} (limit at most ${caps.maxLines}).`,
    );
  }
  const notice = notices.length > 0 ? `[${notices.join(' ')}]` : null;
  return {
    path,
    totalLines: total,
    startLine,
    endLine,
    lines: shown,
    text: notice ? `${out}${notice}` : out.replace(/\n$/, ''),
    truncated: charCapped || (lineCapped && after > 0),
    notice,
  };
}
