// `npm run eval:groups -- ROWS.json [ROWS.json …]`: how an experiment is judged. Each file is the output of
// `sandscope eval --loco --json --rows`; for each group of corpora this prints the held-out separation (AUC of
// the answerability rating, answerable above unanswerable), the false refusals at the cut that keeps 5% and 10%
// of the unanswerable questions answered, and the verdicts' false answers and false refusals. Given two or more
// files, each later one is compared with the first: the difference in AUC and FR@FA5 with a 95% interval from a
// paired bootstrap over corpora and their questions (what noise alone could give).
// An experiment's criterion is set before it runs, on the SEEN corpora (their errors have been read) or on a
// group of corpora nobody has measured yet, named as its judge beforehand (`fresh`, then `pending`, then `pending-2`, on 2026-12-01; `pending-3` and `pending-4` on 2026-12-02).
// The other groups whose errors nobody has read are printed for the record, never chosen on (their README
// Status lines say each time they were printed).
import { existsSync, readFileSync } from 'node:fs';
import { pairedDifference, type RatedRow, refusalsAt, separation } from '@sandscope/eval';
import { z } from 'zod';
import { UserError } from 'sandscope/user-error';
import { runScript } from './script-boundary.ts';

/** The corpora whose errors have been read while developing: every other corpus is unread. */
const SEEN = [
  'govuk-alerts',
  'gitlab-runbooks',
  'cloudnative-pg',
  'moj-cloud-platform',
  'harbor-runbooks',
  'quarry-logistics',
  'tidewater-ops',
  'fernhill-clinic-it',
  'cloudgov-runbooks',
  'pagerduty-incident-response',
];

/** Each group's corpora: a list, or every corpus (`null`), or every corpus not in the list (`{ except }`). */
const GROUPS: Record<string, readonly string[] | null | { readonly except: readonly string[] }> = {
  seen: SEEN,
  /** Written and first run before the last two; a few of their questions were printed in counts. */
  'unread-4': ['rook-ceph', 'mimir-runbooks', 'linkerd', 'velero'],
  'unread-2': ['argocd', 'etcd-ops'],
  /** Written on 2026-12-01 from the corpus alone; first run by the gate as it shipped then (commit 328f06d). */
  'unread-new': ['thanos', 'cert-manager', 'longhorn', 'ingress-nginx', 'flux'],
  /** Written later on 2026-12-01 from the corpus alone; first run by the gate as it shipped then (commit dc9b11d). */
  fresh: ['keda', 'jaeger', 'openebs', 'vitess'],
  /** Written on 2026-12-01 from the corpus alone and kept out of every run until the pointer feature's criterion was
   *  committed (ab4ea40); first run by the gate as it shipped then. The judge of that experiment. */
  pending: ['kyverno', 'crossplane', 'metallb'],
  /** Written on 2026-12-01 from the corpus alone and kept out of every run until the whole-best-passage criterion
   *  was committed (07a6be5); first run by the gate as it shipped then. The judge of that experiment. */
  'pending-2': ['nats', 'postgres-operator', 'redis-ops'],
  /** Written on 2026-12-01/02 from the corpus alone, first run where they waited (a691702, db2b7a1), and moved in
   *  after the plain-words criterion (S-050) was committed. The judge of that fix. */
  'pending-3': ['falco', 'kubevirt', 'autoscaler', 'chaos-mesh', 'tidb-operator', 'vector'],
  /** Written on 2026-12-01/02 from the corpus alone, first run where they waited (26bcb15, 828021f), moved in after
   *  the title-roles criterion (S-053) was committed for its two runs, and back to eval-corpora-pending/ after: the
   *  judge of that fix, which it did not adopt. */
  'pending-4': ['cortex', 'external-dns', 'gatekeeper', 'dapr', 'otel-collector', 'victoriametrics', 'contour', 'rke2', 'knative'],
  /** Every corpus whose errors nobody has read, pooled: the held-out figure on material not tuned by reading. */
  unread: { except: SEEN },
  all: null,
};

const inGroup = (group: (typeof GROUPS)[string], corpus: string) =>
  group === null || (Array.isArray(group) ? group.includes(corpus) : !(group as { except: readonly string[] }).except.includes(corpus));

/** Group names padded to one width, so the columns line up. */
const WIDTH = Math.max(...Object.keys(GROUPS).map((n) => n.length));

const Rows = z.object({
  questions: z.array(z.object({ id: z.string(), corpus: z.string(), label: z.string(), verdict: z.string(), answerability: z.number().nullable() })),
});
type Row = z.infer<typeof Rows>['questions'][number];

await runScript('eval:groups', async () => {
  const files = process.argv.slice(2);
  if (!files.length) throw new UserError('name one or more files written by `sandscope eval --loco --json --rows`');
  const runs: Row[][] = [];
  for (const file of files) {
    if (!existsSync(file)) throw new UserError(`${file}: no such file. Write one with \`sandscope eval --loco --json --rows > FILE\``);
    let rows: Row[];
    try {
      rows = Rows.parse(JSON.parse(readFileSync(file, 'utf8'))).questions;
    } catch {
      throw new UserError(`${file}: not the output of \`sandscope eval --loco --json --rows\` (it needs the rows: pass --rows)`);
    }
    runs.push(rows);
    console.log(file);
    for (const [name, corpora] of Object.entries(GROUPS)) {
      const g = rows.filter((r) => inGroup(corpora, r.corpus));
      if (!g.length) continue; // a run that held out only some corpora (--held-out) has none of this group
      const unanswerable = g.filter((r) => r.label === 'unanswerable');
      const answerable = g.filter((r) => r.label !== 'unanswerable');
      const fa = unanswerable.filter((r) => r.verdict !== 'refused').length;
      const fr = answerable.filter((r) => r.verdict === 'refused').length;
      console.log(
        `  ${name.padEnd(WIDTH)} n=${String(g.length).padStart(4)}  AUC ${separation(g).toFixed(4)}  FR@FA5 ${refusalsAt(g, 0.05).toFixed(3)}  FR@FA10 ${refusalsAt(g, 0.1).toFixed(3)}  false answers ${fa}/${unanswerable.length}  false refusals ${fr}/${answerable.length}`,
      );
    }
  }
  // Each later run against the first: the difference, and what a paired bootstrap over corpora and their questions
  // says noise alone would give (95%). A criterion's clause is met or not on the difference; the interval says how
  // much that verdict is worth.
  for (const [k, run] of runs.entries()) {
    if (k === 0) continue;
    console.log(`${files[k]} − ${files[0]} (95% interval: paired bootstrap of corpora, then of their questions; 1,000 draws)`);
    let compared = 0;
    for (const [name, corpora] of Object.entries(GROUPS)) {
      const pick = (rows: readonly Row[]) => rows.filter((r) => inGroup(corpora, r.corpus)) as RatedRow[];
      const base = pick(runs[0]!);
      const later = pick(run);
      // Only questions both runs scored are compared; a group one of them never held out is left out, not an error.
      const shared = new Set(base.map((r) => `${r.corpus}\u0000${r.id}`));
      if (!later.some((r) => shared.has(`${r.corpus}\u0000${r.id}`))) continue;
      compared++;
      const fmt = (d: { difference: number; low: number; high: number }, digits: number) =>
        `${d.difference >= 0 ? '+' : ''}${d.difference.toFixed(digits)} [${d.low.toFixed(digits)}, ${d.high.toFixed(digits)}]`;
      const auc = pairedDifference(base, later, separation);
      const fr5 = pairedDifference(base, later, (rows) => refusalsAt(rows, 0.05));
      console.log(`  ${name.padEnd(WIDTH)} corpora ${String(auc.corpora).padStart(2)}  ΔAUC ${fmt(auc, 4)}  ΔFR@FA5 ${fmt(fr5, 3)}`);
    }
    if (!compared) console.log('  no question was scored in both runs: compare runs that held out the same corpora');
  }
});
