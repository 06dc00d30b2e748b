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

/** The word right before a time that says it is one ("at 3:12", "between 3:10 and 3:20", "until 3:12"). */
const CLOCK_WORD_BEFORE = /\b(?:at|around|about|near|roughly|approximately|circa|since|after|before|until|till|from|between|by|to|and|through)\s+$/i;
/** What right after a time says it is one: a meridiem or a zone ("3:12 pm", "3:12 UTC", "3:12Z"). */
const CLOCK_WORD_AFTER = /^\s*(?:[ap]\.?m\b|utc\b|gmt\b|z\b)/i;
/** A meridiem after a time: "3:12 pm" is 15:12, "12:05 am" is 00:05. */
const MERIDIEM = /^\s*([ap])\.?m\b/i;
/** A range written with a dash ("3:10-3:20"): each end is a time because the other is. */
const DASH_TO_TIME = /^\s*[-–]\s*\d{1,2}:[0-5]\d/;
const TIME_DASH_BEFORE = /\d{1,2}:[0-5]\d(?::[0-5]\d)?\s*[-–]\s*$/;
/** Words that make h:mm anything but a clock: "lines 1:10" (a range of lines), "a 1:10 ratio". */
const NOT_A_CLOCK_BEFORE = /\b(?:lines?|ratio(?:\s+of)?)\s+$/i;
const NOT_A_CLOCK_AFTER = /^\s*ratio\b/i;

/**
 * Whether the h:mm at `index` is a time of day. S-273: every h:mm was one, so "what happened in lines 1:10" asked for
 * the lines stamped 01:10, and "where is the 1:10 sampling ratio set?" for the lines stamped at 1:10 — neither a
 * time. A clock is written with seconds ("3:12:04"), with a two-digit hour ("03:12", "14:05"), or where its context
 * makes it one: a word before it that places a time ("at", "since", "between … and"), a meridiem or zone after it, a
 * dash to or from another time. A one-digit hour with none of these is a ratio, a score, a count — not a clock.
 * "line(s)" before it, or "ratio" around it, make no time of it whatever its form.
 */
function isClock(message: string, index: number, written: string, hour: string, seconds: string | undefined): boolean {
  const before = message.slice(Math.max(0, index - 40), index);
  const after = message.slice(index + written.length, index + written.length + 40);
  if (NOT_A_CLOCK_BEFORE.test(before) || NOT_A_CLOCK_AFTER.test(after)) return false;
  if (seconds !== undefined || hour.length === 2) return true;
  return CLOCK_WORD_BEFORE.test(before) || CLOCK_WORD_AFTER.test(after) || DASH_TO_TIME.test(after) || TIME_DASH_BEFORE.test(before);
}

export function askedWindow(message: string): TimeWindow | null {
  const clocks = [...message.matchAll(TIME)].filter((m) => isClock(message, m.index, m[0], m[1]!, m[3]));
  const times = clocks.map((m) => {
    const meridiem = MERIDIEM.exec(message.slice(m.index + m[0].length))?.[1]?.toLowerCase();
    const hour = (Number(m[1]) % (meridiem ? 12 : 24)) + (meridiem === 'p' ? 12 : 0);
    const start = hour * 3600 + Number(m[2]) * 60 + Number(m[3] ?? 0);
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
