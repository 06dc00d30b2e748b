import { type LineTime, lineTime } from './log-time.ts';

/** Lines put in the order they were written, as far as their stamps say. */
export interface TimeOrdered<T> {
  /** The lines with a dated stamp by it (earliest first, or latest first), then the rest in file order. */
  readonly ordered: readonly T[];
  /** Lines whose time could not be read (no stamp, or a clock with no date): they were not compared by time. */
  readonly untimed: readonly T[];
  /** The files of the lines compared by time. */
  readonly timedFiles: readonly string[];
  readonly timeOf: (item: T) => LineTime | null;
}

/**
 * S-232: "what was the first error?" took the first line of the file whose name sorted first — app.log's 03:12:03
 * before events.jsonl's 03:12:02, and the answer changed when a file was renamed. Lines of several files are ordered
 * by the time each states (log-time.ts); a line that states none cannot be placed among them, so it keeps file order
 * after them and is listed, for the answer to say so.
 */
export function inTimeOrder<T>(
  items: readonly T[],
  of: (item: T) => { path: string; line: number; text: string },
  direction: 'earliest' | 'latest',
): TimeOrdered<T> {
  const times = new Map<T, LineTime | null>(items.map((item) => [item, lineTime(of(item).text)]));
  const fileOrder = (a: T, b: T) => {
    const x = of(a);
    const y = of(b);
    return x.path === y.path ? x.line - y.line : x.path < y.path ? -1 : 1;
  };
  const sign = direction === 'earliest' ? 1 : -1;
  const timed = items.filter((i) => times.get(i)?.at != null);
  const untimed = items.filter((i) => times.get(i)?.at == null);
  timed.sort((a, b) => sign * (times.get(a)!.at! - times.get(b)!.at! || fileOrder(a, b)));
  untimed.sort((a, b) => sign * fileOrder(a, b));
  return {
    ordered: [...timed, ...untimed],
    untimed,
    timedFiles: [...new Set(timed.map((i) => of(i).path))],
    timeOf: (item) => times.get(item) ?? null,
  };
}
