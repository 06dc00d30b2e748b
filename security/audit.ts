/**
 * Dependency audit: `npm audit` against the registry's advisory database, every
 * dependency (dev ones too — they run in CI, next to its secrets).
 *
 * - advisories answered: prints the counts by severity; exit 1 when any is
 *   high or critical (SECURITY_AUDIT_LEVEL changes the threshold);
 * - advisories not answered — the registry refuses the bulk endpoint (this
 *   machine's mirror answers 405), no network, a timeout: prints
 *   `audit unavailable: <reason>` and exits 2. That is not a pass: the runner
 *   reports it as UNAVAILABLE, and whether it fails the run is the runner's
 *   decision (security/README.md).
 */
import { spawn } from 'node:child_process';
import { REPO_ROOT } from './lib/service.ts';

const LEVELS = ['info', 'low', 'moderate', 'high', 'critical'] as const;
type Level = (typeof LEVELS)[number];
const THRESHOLD = (process.env.SECURITY_AUDIT_LEVEL ?? 'high') as Level;
const TIMEOUT_MS = 90_000;

function npmAudit(): Promise<{ code: number | null; stdout: string; stderr: string; timedOut: boolean }> {
  return new Promise((done) => {
    const child = spawn('npm', ['audit', '--json'], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      timedOut = true;
      process.kill(child.pid!, 'SIGTERM');
    }, TIMEOUT_MS);
    child.on('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr, timedOut });
    });
  });
}

/** Why the registry gave no advisories, in one line, or null when it did. */
function unavailableReason(report: Record<string, unknown> | null, stderr: string): string | null {
  if (!report) return `npm audit printed no report (${stderr.trim().split('\n').at(-1) ?? 'no output'})`;
  if ('error' in report || 'statusCode' in report || 'message' in report) {
    const r = report as { message?: string; statusCode?: number; error?: { summary?: string; code?: string } };
    const what = r.message ?? r.error?.summary ?? r.error?.code ?? 'an error';
    return r.statusCode === 405
      ? `the registry answered 405 Method Not Allowed to npm's bulk advisory request (${what}); it serves packages but not advisories`
      : `npm audit failed: ${what}`;
  }
  if (!('metadata' in report)) return 'npm audit printed a report without metadata';
  return null;
}

async function main(): Promise<number> {
  const { code, stdout, stderr, timedOut } = await npmAudit();
  if (timedOut) {
    console.log(`audit unavailable: npm audit gave no answer within ${TIMEOUT_MS / 1000} s`);
    return 2;
  }
  let report: Record<string, unknown> | null = null;
  try {
    report = JSON.parse(stdout) as Record<string, unknown>;
  } catch {
    report = null;
  }
  const reason = unavailableReason(report, stderr);
  if (reason) {
    console.log(`audit unavailable: ${reason}`);
    return 2;
  }
  const metadata = (report as { metadata: { vulnerabilities: Record<Level, number>; dependencies?: { total?: number } } }).metadata;
  const counts = metadata.vulnerabilities;
  const total = metadata.dependencies?.total ?? '?';
  console.log(`audit: ${total} dependencies; advisories ${LEVELS.map((l) => `${l} ${counts[l] ?? 0}`).join(', ')} (npm audit exit ${code})`);
  const failing = LEVELS.slice(LEVELS.indexOf(THRESHOLD)).reduce((n, l) => n + (counts[l] ?? 0), 0);
  if (failing > 0) {
    const vulnerable = Object.entries((report as { vulnerabilities?: Record<string, { severity: Level; via: unknown[] }> }).vulnerabilities ?? {})
      .filter(([, v]) => LEVELS.indexOf(v.severity) >= LEVELS.indexOf(THRESHOLD))
      .map(([name, v]) => `${name} (${v.severity})`);
    console.log(`audit: FAILED — ${failing} at ${THRESHOLD} or above: ${vulnerable.join(', ')}. Run \`npm audit\` for the advisories and fixes.`);
    return 1;
  }
  return 0;
}

process.exit(await main());
