/**
 * The time of day a question asks about, in seconds since midnight, both ends included. S-234: "what happened between
 * 03:11 and 03:13?" searched for the texts "03:11" and "03:13" and cited none of the 03:12 errors between them. A
 * question names a clock, not a date, so the window is on the clock the lines are written in (log-time.ts): every
 * day's lines in it are in it.
 *
 * - "between 03:11 and 03:13", "from 03:11 to 03:13", "03:11-03:13": from the first to the end of the last, so the
 *   03:13:00 line a person reading "until 03:13" means is in it;
 * - "after"/"since 03:12": from it to midnight; "before"/"until 03:12": from midnight to the end of it;
 * - one time ("around 03:12", "at 03:12"): that minute, or that second when seconds are given. "Around" is read as the
 *   minute a person reads off the lines' stamps: a wider window chosen here would be a number no one asked for, and
 *   the lines either side of it are one question away.
 */
export interface TimeWindow {
  readonly from: number;
  readonly to: number;
  /** The window in words, for the answer: "between 03:11 and 03:13". */
  readonly said: string;
  /** The times as the question wrote them: not terms to search for. */
  readonly tokens: readonly string[];
}

const TIME = /(?<![\d:.])([01]?\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?(?![\d:]|\.\d)/g;
const DAY_END = 24 * 3600 - 1;

export function askedWindow(message: string): TimeWindow | null {
  const times = [...message.matchAll(TIME)].map((m) => {
    const start = Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3] ?? 0);
    return { written: m[0], start, end: m[3] === undefined ? start + 59 : start, index: m.index };
  });
  const first = times[0];
  const last = times.at(-1);
  if (!first || !last) return null;
  const tokens = times.map((t) => t.written);
  if (times.length > 1) return { from: first.start, to: last.end, said: `between ${first.written} and ${last.written}`, tokens };
  const before = message.slice(0, first.index).toLowerCase();
  if (/\b(?:after|since|from)\s+(?:about\s+)?$/.test(before)) return { from: first.start, to: DAY_END, said: `from ${first.written}`, tokens };
  if (/\b(?:before|until|till|up to)\s+(?:about\s+)?$/.test(before)) return { from: 0, to: first.end, said: `until ${first.written}`, tokens };
  return { from: first.start, to: first.end, said: `at ${first.written}`, tokens };
}

/** Whether a clock (seconds since midnight) is in the window; one that runs past midnight (23:55 to 00:05) wraps. */
export function inWindow(window: TimeWindow, clock: number): boolean {
  return window.from <= window.to ? clock >= window.from && clock <= window.to : clock >= window.from || clock <= window.to;
}

/** Words that say where a time is ("around 03:12", "since 03:10"): how the window was asked, not what to look for in it. */
const WINDOW_WORDS = new Set([
  'around',
  'about',
  'near',
  'roughly',
  'approximately',
  'circa',
  'since',
  'after',
  'before',
  'until',
  'till',
  'between',
  'from',
  'during',
  'window',
]);

export function isWindowWord(word: string): boolean {
  return WINDOW_WORDS.has(word.toLowerCase());
}
