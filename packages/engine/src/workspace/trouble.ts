/** A question about something going wrong (the planner searches for "error" too then; sandbox-plan.ts summarises the logs). */
export const FAILURE = /\b(?:fail\w*|error\w*|broken|break(?:s|ing)?|crash\w*|down|wrong|outage)\b/i;

/** A log line reporting trouble: a level, an exception, a failure word or a 5xx. */
const SEVERE = /\b(error|err|warn|warning|fatal|crit|critical|panic|exception|fail(ed|ure)?|timeout|timed out|refused|exhausted|oomkilled|5\d\d)\b/i;

/** An access log's request and its status (common and combined formats): `"GET /api/cart HTTP/1.1" 200 512`. */
const ACCESS_STATUS = /"[A-Z]+ [^"]* HTTP\/[\d.]+" (\d{3}) /;

/**
 * Whether a line reports trouble. An access log's line says so by its status alone: "any number from 500 to 599" read
 * `"GET /api/cart HTTP/1.1" 200 512` (a 200 that sent 512 bytes) as a 5xx, and its 502s were found only by the number
 * (S-234). A status a server returns for its own failure (5xx) is trouble; a client's mistake (4xx) is not the
 * incident's.
 */
export function reportsTrouble(line: string): boolean {
  const access = ACCESS_STATUS.exec(line);
  if (access) return Number(access[1]) >= 500;
  return SEVERE.test(line);
}
