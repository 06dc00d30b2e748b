/**
 * The lines of a workspace file one page shows. A 10 MB log (128,028 lines) was rendered whole: 74 MB of HTML that
 * took a phone 95 s to open, for one cited line (a colleague's test, 2026-12-05). A page shows at most
 * WINDOW_LINES, starting a little before the cited range (or at `from`, where the reader paged to).
 */
export const WINDOW_LINES = 1000;
/** Lines shown above a cited range, so the reader sees what led up to it. */
const LEAD_LINES = 200;

export interface FileWindow {
  readonly first: number;
  readonly last: number;
  /** The first line of the page before and after this one, or null at either end of the file. */
  readonly earlier: number | null;
  readonly later: number | null;
}

export function fileWindow(total: number, range: { start: number; end: number } | null, from?: string | string[]): FileWindow {
  const raw = Array.isArray(from) ? from[0] : from;
  const asked = raw && /^\d{1,9}$/.test(raw) ? Number(raw) : null;
  const wanted = asked ?? (range && range.start <= total ? range.start - LEAD_LINES : 1);
  const first = Math.max(1, Math.min(wanted, Math.max(1, total - WINDOW_LINES + 1)));
  const last = Math.min(total, first + WINDOW_LINES - 1);
  return {
    first,
    last,
    earlier: first > 1 ? Math.max(1, first - WINDOW_LINES) : null,
    later: last < total ? last + 1 : null,
  };
}
