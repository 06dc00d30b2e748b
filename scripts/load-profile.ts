/**
 * `npm run load:profile -- --label before` — where the milliseconds of a load
 * run go (issue 11 §1, ADR-0004).
 *
 * Runs `npm run load`'s script under `node --cpu-prof` (DATABASE_URL passes
 * through, so either store can be profiled), takes the main thread's profile —
 * the service's thread; autocannon has its own — and keeps only the samples of
 * the throughput phase (load.ts writes its start and end on the profiler's
 * clock). Self time is summed by where the code lives (our packages by folder,
 * dependencies by package, V8's garbage collector, idle) and the busiest
 * functions are listed, each as ms per completed run so runs of different
 * length compare.
 *
 * The summary goes into docs/load-profile.json under its label and store, and
 * docs/LOAD-PROFILE.md is rendered from that record; the profile's figures are
 * slower than an unprofiled run, so they never go into docs/load.json.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { UserError } from 'sandscope/user-error';
import { runScript } from './script-boundary.ts';

const ROOT = resolve(import.meta.dirname, '..');
const RECORD = join(ROOT, 'docs/load-profile.json');
const OUT = join(ROOT, 'docs/LOAD-PROFILE.md');
const TOP_FUNCTIONS = 15;

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}
interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
}
interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}
interface Marks {
  readonly store: 'postgres' | 'pglite';
  readonly startUs: number;
  readonly endUs: number;
  readonly runs: number;
  readonly runsPerSecond: number;
  readonly p99Ms: number;
}

/** One profile's summary: what docs/load-profile.json keeps. */
interface ProfileSummary {
  readonly date: string;
  readonly commit: string;
  readonly loadAverage: number;
  readonly runs: number;
  readonly runsPerSecondProfiled: number;
  readonly sampledMs: number;
  readonly categories: readonly { readonly name: string; readonly ms: number }[];
  readonly functions: readonly { readonly name: string; readonly where: string; readonly ms: number }[];
}
type ProfileRecord = Record<string, Partial<Record<Marks['store'], ProfileSummary>>>;

/** Where a frame's code lives, as a reader of the ADR would name it. */
function categoryOf(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (url === '') {
    if (functionName === '(idle)') return 'idle (waiting for I/O)';
    if (functionName === '(garbage collector)') return 'V8 garbage collector';
    if (functionName.startsWith('RegExp: ')) return 'regular expressions (V8)';
    if (functionName === 'randomFillSync' || functionName === 'randomUUID') return 'Node: crypto';
    // (program), runMicrotasks, writev…: V8 and Node's C++ with no script frame of its own.
    return 'V8 / Node native';
  }
  if (url.startsWith('wasm://')) return 'PGlite (WebAssembly Postgres)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) {
    const name = pkg[1]!;
    if (name.startsWith('@langchain/')) return 'LangGraph / @langchain/core';
    if (name === 'langsmith') return 'LangGraph / @langchain/core';
    if (name.startsWith('@electric-sql/')) return 'PGlite (JavaScript side)';
    if (name === 'pg' || name.startsWith('pg-')) return 'node-postgres (pg)';
    if (name === 'hono' || name.startsWith('@hono/')) return 'HTTP (hono)';
    if (name === 'zod') return 'zod';
    return `dependency: ${name}`;
  }
  const ours = /\/(packages\/[^/]+\/src\/[^/]+|apps\/agent\/src\/[^/]+)/.exec(url);
  if (ours) return `ours: ${ours[1]!.replace(/\.ts$/, '')}`;
  if (url.startsWith('node:')) {
    const mod = url.slice('node:'.length).split('/');
    return `Node: ${mod[0] === 'internal' ? (mod[1] ?? 'internal') : mod[0]}`;
  }
  return `other: ${url.split('/').slice(-2).join('/')}`;
}

/** Self time of each sample inside [startUs, endUs], by category and by function. */
function summarise(profile: CpuProfile, marks: Pick<Marks, 'startUs' | 'endUs'>) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const categories = new Map<string, number>();
  const functions = new Map<string, { name: string; where: string; us: number }>();
  let at = profile.startTime;
  let sampledUs = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const delta = profile.timeDeltas[i] ?? 0;
    at += delta;
    if (at < marks.startUs || at > marks.endUs) continue;
    const node = byId.get(profile.samples[i]!);
    if (!node) continue;
    // A sample's time is the interval up to the next one (the profiler's own attribution).
    const us = profile.timeDeltas[i + 1] ?? delta;
    sampledUs += us;
    const category = categoryOf(node.callFrame);
    categories.set(category, (categories.get(category) ?? 0) + us);
    const where = node.callFrame.url ? `${shortUrl(node.callFrame.url)}:${node.callFrame.lineNumber + 1}` : '';
    const key = `${node.callFrame.functionName}@${where}`;
    const entry = functions.get(key) ?? { name: node.callFrame.functionName || '(anonymous)', where, us: 0 };
    entry.us += us;
    functions.set(key, entry);
  }
  return { sampledUs, categories, functions };
}

/** Categories under 0.5 % of the samples are one row, so the table stays short enough to read. */
function collapsed(categories: readonly { name: string; ms: number }[], totalMs: number): { name: string; ms: number }[] {
  const sorted = [...categories].sort((a, b) => b.ms - a.ms);
  const kept = sorted.filter((c) => c.ms >= totalMs * 0.005);
  const rest = sorted.filter((c) => c.ms < totalMs * 0.005);
  const restMs = rest.reduce((sum, c) => sum + c.ms, 0);
  return rest.length === 0 ? kept : [...kept, { name: `everything else (${rest.length} places, each under 0.5 %)`, ms: restMs }];
}

function shortUrl(url: string): string {
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) return url.slice(nm + 'node_modules/'.length);
  const repo = url.indexOf(ROOT);
  if (repo >= 0) return url.slice(repo + ROOT.length + 1);
  return url.replace(/^file:\/\//, '');
}

function render(record: ProfileRecord): string {
  const fmt = (n: number, d = 2) => n.toFixed(d);
  const sections: string[] = [];
  for (const [label, byStore] of Object.entries(record)) {
    for (const [store, s] of Object.entries(byStore)) {
      if (!s) continue;
      const perRun = (ms: number) => ms / Math.max(1, s.runs);
      sections.push(`## ${label} — ${store}

- Date: ${s.date}, commit ${s.commit}; 1-minute load average ${fmt(s.loadAverage)} at the end
- Throughput phase under the profiler: ${s.runs} runs completed, ${fmt(s.runsPerSecondProfiled, 1)} runs/s under the profiler (docs/LOAD.md has unprofiled figures; on a shared machine the load varies between runs more than the profiler costs)
- Main thread sampled for ${fmt(s.sampledMs, 0)} ms: ${fmt(perRun(s.sampledMs))} ms per completed run, idle included

### Self time by where the code lives

| where | ms per run | share |
|---|---|---|
${s.categories.map((c) => `| ${c.name} | ${fmt(perRun(c.ms))} | ${fmt((100 * c.ms) / s.sampledMs, 1)} % |`).join('\n')}

### The ${s.functions.length} busiest functions (self time)

| function | where | ms per run |
|---|---|---|
${s.functions.map((f) => `| \`${f.name}\` | ${f.where ? `\`${f.where}\`` : ''} | ${fmt(perRun(f.ms))} |`).join('\n')}
`);
    }
  }
  return `# Where a load run's milliseconds go

Generated by \`npm run load:profile -- --label NAME\` (scripts/load-profile.ts) from docs/load-profile.json — do not
edit by hand. Each section is one \`node --cpu-prof\` run of \`npm run load\`'s script, the main thread's samples
during its throughput phase only (${'`'}LOAD_CONNECTIONS${'`'} connections, default 10), self time summed by where the code lives.
The categories add up to the sampled time; "idle" is the thread waiting (for the database server, for the socket).

${sections.join('\n')}`;
}

await runScript('load:profile', async () => {
  const args = process.argv.slice(2);
  const labelAt = args.indexOf('--label');
  const label = labelAt >= 0 ? args[labelAt + 1] : undefined;
  if (!label || !/^[A-Za-z0-9 _.-]{1,40}$/.test(label))
    throw new UserError('say which profile this is: --label NAME (letters, digits, space, _ . -), e.g. --label before.');
  const dir = mkdtempSync(join(os.tmpdir(), 'sandscope-load-profile-'));
  try {
    const marksFile = join(dir, 'marks.json');
    console.log(`profiling npm run load (${process.env.DATABASE_URL ? 'Postgres server' : 'PGlite'}) into ${dir}…`);
    const child = spawnSync(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${dir}`, '--import', 'tsx', join(ROOT, 'scripts/load.ts'), '--json'], {
      cwd: ROOT,
      env: { ...process.env, LOAD_PROFILE_MARKS: marksFile },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    if (child.status !== 0 || !existsSync(marksFile))
      throw new UserError(`the profiled load run failed (exit ${child.status ?? child.signal}); run npm run load to see why.`);
    const marks = JSON.parse(readFileSync(marksFile, 'utf8')) as Marks;
    // Node names a profile CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile; thread 0 is the main thread.
    const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
    const main = files.filter((f) => f.split('.')[4] === '0').sort((a, b) => statSync(join(dir, b)).size - statSync(join(dir, a)).size)[0];
    if (!main) throw new UserError(`no main-thread profile in ${dir} (found ${files.join(', ') || 'none'}).`);
    const profile = JSON.parse(readFileSync(join(dir, main), 'utf8')) as CpuProfile;
    const { sampledUs, categories, functions } = summarise(profile, marks);
    if (sampledUs === 0) throw new Error('no samples fell inside the throughput phase; the profiler clock and hrtime disagree');
    const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim() || 'unknown';
    const dirty = spawnSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim()
      ? ' (with uncommitted changes)'
      : '';
    const summary: ProfileSummary = {
      date: new Date().toISOString(),
      commit: `${commit}${dirty}`,
      loadAverage: os.loadavg()[0] ?? 0,
      runs: marks.runs,
      runsPerSecondProfiled: marks.runsPerSecond,
      sampledMs: sampledUs / 1000,
      categories: collapsed(
        [...categories].map(([name, us]) => ({ name, ms: us / 1000 })),
        sampledUs / 1000,
      ),
      functions: [...functions.values()]
        .sort((a, b) => b.us - a.us)
        .slice(0, TOP_FUNCTIONS)
        .map((f) => ({ name: f.name, where: f.where, ms: f.us / 1000 })),
    };
    const record: ProfileRecord = existsSync(RECORD) ? (JSON.parse(readFileSync(RECORD, 'utf8')) as ProfileRecord) : {};
    record[label] = { ...record[label], [marks.store]: summary };
    writeFileSync(RECORD, `${JSON.stringify(record, null, 2)}\n`);
    const text = render(record);
    writeFileSync(OUT, text);
    console.log(text);
    console.log(`written to ${OUT} and ${RECORD}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
