/**
 * What every pen test prints and how it ends: counts by name (requests,
 * statuses, findings), each finding on its own line, and an exit code — 0 when
 * nothing regressed, 1 when something did. A check that cannot run (no
 * Postgres, no Chromium) exits 2: that is neither a pass nor a regression, and
 * the runner says so instead of counting it as either.
 */
import { cleanUp } from './service.ts';

export class Tally {
  readonly counts = new Map<string, number>();
  readonly findings: string[] = [];

  constructor(readonly name: string) {}

  count(key: string, by = 1): void {
    this.counts.set(key, (this.counts.get(key) ?? 0) + by);
  }

  /** A regression: printed at once (so a timeout still shows it) and counted. */
  finding(text: string): void {
    // One finding, one line: a quoted response body may hold newlines (an SSE stream).
    const message = text.replace(/\s*\n\s*/g, ' ⏎ ');
    this.findings.push(message);
    console.log(`  FINDING ${message}`);
  }

  /** `finding(message)` unless `ok`. */
  expect(ok: boolean, message: string): void {
    if (!ok) this.finding(message);
  }

  line(text: string): void {
    console.log(`  ${text}`);
  }

  /** `statuses: 200×12 400×80 …`, sorted by key. */
  summary(prefix: string): string {
    const parts = [...this.counts.entries()].filter(([k]) => k.startsWith(prefix)).sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true }));
    return parts.map(([k, v]) => `${k.slice(prefix.length)}×${v}`).join(' ');
  }
}

export class CannotRun extends Error {}

/** Runs a pen test: prints its header, its counts and findings, cleans up what it started, exits with its verdict. */
export async function runCheck(name: string, body: (t: Tally) => Promise<void>): Promise<never> {
  const tally = new Tally(name);
  console.log(`${name}:`);
  let code = 0;
  try {
    await body(tally);
    code = tally.findings.length > 0 ? 1 : 0;
  } catch (error) {
    if (error instanceof CannotRun) {
      console.log(`  CANNOT RUN: ${error.message}`);
      code = 2;
    } else {
      console.log(`  ERROR: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      code = 1;
    }
  } finally {
    await cleanUp();
  }
  console.log(`  ${name}: ${tally.findings.length} finding(s) — ${code === 0 ? 'ok' : code === 2 ? 'could not run' : 'REGRESSION'}`);
  process.exit(code);
}
