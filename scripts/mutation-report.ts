import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { UserError } from 'sandscope/user-error';
import { fileScores, percent, renderMutationDoc, type StrykerReport, scoreOf } from './mutation-score.ts';
import { runScript } from './script-boundary.ts';

/**
 * Writes docs/MUTATION.md from Stryker's JSON report (`npm run mutants` runs
 * Stryker, then this): every figure in the table is counted from the report,
 * never typed (the brief's rule for figures in docs).
 */

const ROOT = resolve(import.meta.dirname, '..');
const REPORT = join(ROOT, 'reports/mutation/mutation.json');
const DOC = join(ROOT, 'docs/MUTATION.md');

await runScript('mutation-report', async () => {
  if (!existsSync(REPORT)) throw new UserError(`no Stryker report at ${REPORT}: run \`npm run mutants\` (it runs Stryker, then this script).`);
  const report = JSON.parse(readFileSync(REPORT, 'utf8')) as StrykerReport;
  const scores = fileScores(report);
  writeFileSync(DOC, renderMutationDoc(scores, 'reports/mutation/mutation.json'));
  const all = scores.reduce(
    (t, s) => ({ killed: t.killed + s.killed, timeout: t.timeout + s.timeout, survived: t.survived + s.survived, noCoverage: t.noCoverage + s.noCoverage }),
    { killed: 0, timeout: 0, survived: 0, noCoverage: 0 },
  );
  process.stdout.write(
    `mutation score ${percent(scoreOf(all))} over ${scores.length} files (${all.killed} killed, ${all.timeout} timed out, ${all.survived} survived, ${all.noCoverage} no coverage); wrote docs/MUTATION.md\n`,
  );
});
