/**
 * When a log line says it was written. Logs of one incident come in several formats, and "what failed first?" was
 * answered from whichever file sorted first by name, not from the earliest line (S-232): the only way to compare lines
 * of different files is the time each states. Read here: an ISO 8601 stamp (`2024-05-14T03:12:03Z`, `2024-05-14
 * 03:12:03,120+02:00`), an access log's `[14/May/2024:03:12:04 +0000]`, a JSON line's `ts`, `time`, `timestamp` or
 * `@timestamp` (text, or seconds or milliseconds since 1970), and a clock without a date (`May 14 03:12:04`,
 * `03:12:04 ERROR …`), which places a line in the day but cannot order it against another day's or another file's.
 */
export interface LineTime {
  /** Milliseconds since 1970 (UTC); null when the line states a clock but no date. A stamp with no zone is read as UTC. */
  readonly at: number | null;
  /**
   * Seconds since midnight on the clock the line is written in (its own zone, not UTC): a person asking about "03:12"
   * reads the time off the lines, so `[14/May/2024:05:12:04 +0200]` is at 05:12 to them (S-234).
   */
  readonly clock: number;
  /** The stamp as written, to say in an answer. */
  readonly written: string;
}

const ISO = /(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d)(?::(\d\d)(?:[.,](\d+))?)?\s?(Z|[+-]\d\d:?\d\d)?/;
const ACCESS = /\[(\d\d)\/([A-Z][a-z]{2})\/(\d{4}):(\d\d):(\d\d):(\d\d)(?:\s([+-]\d\d):?(\d\d))?\]/;
/** The time fields a JSON log line is written with; matched as text so a line cut short (a search hit is) still has its time. */
const JSON_TIME = /"(?:@timestamp|timestamp|time|ts)"\s*:\s*(?:"([^"]+)"|(\d+(?:\.\d+)?))/;
/** A clock at the start of a line, after an optional syslog date (`May 14`) or bracket. */
const CLOCK = /^\s*(?:[A-Z][a-z]{2}\s+\d{1,2}\s+)?\[?(\d\d):(\d\d):(\d\d)\b/;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** The time a line states, or null when it states none that can be read. */
export function lineTime(line: string): LineTime | null {
  const json = line.trimStart().startsWith('{') ? JSON_TIME.exec(line) : null;
  if (json) return json[1] !== undefined ? stampTime(json[1]) : epochTime(Number(json[2]), json[2]!);
  return stampTime(line);
}

/** The first ISO or access-log stamp in `text` (whichever comes first), else a leading clock. */
function stampTime(text: string): LineTime | null {
  const iso = ISO.exec(text);
  const access = ACCESS.exec(text);
  if (iso && (!access || iso.index <= access.index)) {
    const [written, y, mo, d, h, mi, s = '0', frac = '0', zone] = iso;
    return dated(written, Number(y), Number(mo), Number(d), Number(h), Number(mi), Number(s), Number(`0.${frac}`) * 1000, zoneMinutes(zone));
  }
  if (access) {
    const [written, d, mon, y, h, mi, s, zh, zm] = access;
    const month = MONTHS.indexOf(mon!) + 1;
    if (month === 0) return null;
    const zone = zh === undefined ? 0 : Math.sign(Number(`${zh}1`)) * (Math.abs(Number(zh)) * 60 + Number(zm));
    return dated(written, Number(y), month, Number(d), Number(h), Number(mi), Number(s), 0, zone);
  }
  const clock = CLOCK.exec(text);
  if (!clock) return null;
  const [h, mi, s] = [Number(clock[1]), Number(clock[2]), Number(clock[3])];
  if (h > 23 || mi > 59 || s > 60) return null;
  return { at: null, clock: h * 3600 + mi * 60 + s, written: clock[0].trim() };
}

function dated(written: string, y: number, mo: number, d: number, h: number, mi: number, s: number, ms: number, zone: number): LineTime | null {
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return null;
  const at = Date.UTC(y, mo - 1, d, h, mi, s, Math.floor(ms)) - zone * 60_000;
  return { at, clock: h * 3600 + mi * 60 + s, written };
}

/** A zone as minutes east of UTC: `Z`, `+02:00`, `-0500`; none is UTC. */
function zoneMinutes(zone: string | undefined): number {
  if (zone === undefined || zone === 'Z') return 0;
  const m = /^([+-])(\d\d):?(\d\d)$/.exec(zone);
  return m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : 0;
}

/** Seconds or milliseconds since 1970 (a JSON `ts` of 1715656323 or 1715656323000): no date this side of 5138 is 10^11 seconds. */
function epochTime(value: number, written: string): LineTime | null {
  if (!Number.isFinite(value) || value <= 0) return null;
  const at = value < 1e11 ? value * 1000 : value;
  const date = new Date(at);
  return { at, clock: date.getUTCHours() * 3600 + date.getUTCMinutes() * 60 + date.getUTCSeconds(), written };
}
