// `npm run -s eval:first-runs [-- DIR]`: the first runs of the corpora in DIR (default eval-corpora) — each
// `first-run.json`, the gate as it shipped when the corpus was first scored — pooled against the targets and per
// corpus, as the README prints them. For corpora that have run once but wait outside eval-corpora
// (eval-corpora-pending) it is the only place their figure is printed. Aggregates only: no question is shown.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DECISION_TARGETS, firstRunsTable } from '@sandscope/eval';
import { UserError } from 'sandscope/user-error';
import { EVAL_CORPORA_DIR, loadFirstRuns } from './corpora.ts';
import { runScript } from './script-boundary.ts';

await runScript('eval:first-runs', async () => {
  const dir = join(import.meta.dirname, '..', process.argv[2] ?? EVAL_CORPORA_DIR);
  if (!existsSync(dir)) throw new UserError(`${dir}: no such folder. Name a folder of corpora, e.g. \`npm run -s eval:first-runs -- eval-corpora-pending\`.`);
  const runs = loadFirstRuns(dir);
  if (!runs.length) throw new UserError(`${dir}: no corpus there has a first-run.json yet (see eval-corpora-pending/README.md for how one is made).`);
  console.log(firstRunsTable(runs, DECISION_TARGETS).join('\n'));
});
