// `npm run -s eval:calibrate [-- DIR]`: `sandscope calibrate --dry-run` on every corpus of DIR (default
// eval-corpora) with its own questions — what a team that labels its library's questions would get from refitting
// the bands, held out (5 folds), beside the shipped bands on the same questions — per corpus and pooled. It runs the
// command itself, so the figures are the command's. Only on corpora the shipped model never trained on
// (eval-corpora-pending, or a team's own) are the shipped bands' figures held out too; the table says which.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from 'sandscope/user-error';
import { EVAL_CORPORA_DIR } from './corpora.ts';
import { runScript } from './script-boundary.ts';

/** `calibrate --json`'s rates: null where nothing was counted (no unanswerable, or no answerable, question; S-281). */
interface Rates {
  falseAnswerRate: number | null;
  falseRefusalRate: number | null;
}
interface Calibrated extends Rates {
  answerable: number;
  unanswerable: number;
  keep: 'refit' | 'shipped';
  shipped: Rates & { inSample: boolean };
}

await runScript('eval:calibrate', async () => {
  const root = join(import.meta.dirname, '..');
  const base = process.argv[2] ?? EVAL_CORPORA_DIR;
  const dir = join(root, base);
  if (!existsSync(dir)) throw new UserError(`${base}: no such folder. Name a folder of corpora, e.g. \`npm run -s eval:calibrate -- eval-corpora-pending\`.`);
  const all = readdirSync(dir)
    .sort()
    .filter((n) => existsSync(join(dir, n, 'questions.jsonl')));
  // A corpus waiting to judge is run first by the gate as shipped (its first-run.json); this script must not be
  // what runs it first, so outside eval-corpora one without a first run is left out, and named.
  const names = base === EVAL_CORPORA_DIR ? all : all.filter((n) => existsSync(join(dir, n, 'first-run.json')));
  const unrun = all.filter((n) => !names.includes(n));
  if (unrun.length) console.error(`left out, never run (first-run them first, as eval-corpora-pending/README.md says): ${unrun.join(', ')}`);
  const cli = join(root, 'apps/agent/bin/sandscope.js');
  const rows = names.map((name) => {
    const corpus = join(base, name);
    let out: string;
    try {
      out = execFileSync('node', [cli, 'calibrate', '--corpus', corpus, '--questions', join(corpus, 'questions.jsonl'), '--dry-run', '--json'], {
        cwd: root,
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (error) {
      // The command's own one-line message (e.g. texts not rebuilt), named by corpus, not reported as a bug here.
      const said = String((error as { stderr?: unknown }).stderr ?? '').trim() || (error as Error).message;
      throw new UserError(`${name}: ${said.replace(/^sandscope: /, '')} (\`npm run corpora -- ${base}\` rebuilds a corpus's texts).`);
    }
    return { name, r: JSON.parse(out) as Calibrated };
  });
  const pct = (x: number | null) => (x === null ? 'n/a' : `${(100 * x).toFixed(1)}%`);
  // A null rate is over no question: none counted.
  const count = (rate: number | null, of: number) => Math.round((rate ?? 0) * of);
  console.log('| corpus | answerable/unanswerable | refit, held out: false answers | false refusals | shipped bands: false answers | false refusals | kept |');
  console.log('|---|---|---|---|---|---|---|');
  for (const { name, r } of rows)
    console.log(
      `| ${name} | ${r.answerable}/${r.unanswerable} | ${pct(r.falseAnswerRate)} | ${pct(r.falseRefusalRate)} | ${pct(r.shipped.falseAnswerRate)}${r.shipped.inSample ? ' (in-sample)' : ''} | ${pct(r.shipped.falseRefusalRate)} | ${r.keep} |`,
    );
  const sum = (f: (r: Calibrated) => number) => rows.reduce((s, { r }) => s + f(r), 0);
  const nU = sum((r) => r.unanswerable);
  const nA = sum((r) => r.answerable);
  const refitFa = sum((r) => count(r.falseAnswerRate, r.unanswerable));
  const refitFr = sum((r) => count(r.falseRefusalRate, r.answerable));
  const shippedFa = sum((r) => count(r.shipped.falseAnswerRate, r.unanswerable));
  const shippedFr = sum((r) => count(r.shipped.falseRefusalRate, r.answerable));
  console.log(
    `\nPooled over ${rows.length} corpora: refitted on each corpus's own questions (held out), false answers ${refitFa} of ${nU} and false refusals ${refitFr} of ${nA}; the shipped bands, false answers ${shippedFa} of ${nU} and false refusals ${shippedFr} of ${nA}. calibrate would write the refit for ${rows.filter((x) => x.r.keep === 'refit').length} of ${rows.length}.`,
  );
});
