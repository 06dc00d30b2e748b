import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FirstRun } from '@sandscope/eval';
import { loadEvalCorpora, parseExclude } from 'sandscope/corpus';
import { UserError } from 'sandscope/user-error';

export { GENERATED, loadEvalCorpora, loadGeneratedSet, statusOf } from 'sandscope/corpus';
export const EVAL_CORPORA_DIR = 'eval-corpora';
export const corporaDir = (root: string) => join(root, EVAL_CORPORA_DIR);

/**
 * Every development corpus here with its measured questions, for the scripts that train on them. A corpus whose
 * texts are missing stops the script with what to run: a figure over fewer corpora than the repo names must not
 * pass for the whole (`hint` adds the script's own way out, e.g. train's --exclude).
 */
export async function measuredCorpora(root: string, keep: (name: string) => boolean = () => true, hint = '') {
  const corpora = await loadEvalCorpora(corporaDir(root), keep);
  const missing = corpora.filter((c) => !c.measured);
  if (missing.length) throw new UserError(`${missing.map((c) => c.name).join(', ')}: ${missing[0]!.missing}.${hint}`);
  return corpora.flatMap((c) => (c.measured ? [{ name: c.name, measured: c.measured }] : []));
}

/** `--exclude a,b` on a script's command line. */
export function excludedCorpora(argv: readonly string[]): Set<string> {
  const i = argv.indexOf('--exclude');
  return parseExclude(i >= 0 ? argv[i + 1] : undefined);
}

const PENDING_DIR = 'eval-corpora-pending';

/**
 * Every first run there is: of the corpora in eval-corpora and of those that wait to judge in eval-corpora-pending
 * (first-run where they wait; the file moves with the corpus, so none is counted twice), by corpus name.
 */
export function everyFirstRun(root: string): FirstRun[] {
  return [corporaDir(root), join(root, PENDING_DIR)]
    .filter((dir) => existsSync(dir))
    .flatMap(loadFirstRuns)
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** Every corpus's `first-run.json` (its unseen first run), by corpus name; corpora without one are left out. */
export function loadFirstRuns(dir: string): FirstRun[] {
  return readdirSync(dir)
    .sort()
    .filter((name) => existsSync(join(dir, name, 'first-run.json')))
    .map((name) => ({ name, report: firstRunOf(join(dir, name, 'first-run.json')) }));
}

const FIRST_RUN_FIELDS = ['n', 'answerable', 'unanswerable', 'falseAnswerRate', 'falseRefusalRate', 'rightSourceRate'] as const;

/** A first run as `sandscope eval --corpus … --json` wrote it; anything else is named, with how to restore it. */
function firstRunOf(path: string): FirstRun['report'] {
  let report: Record<string, unknown> | null = null;
  try {
    report = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    /* named below */
  }
  // A rate over no question is null in `eval --json` (S-281); a count is always a number.
  const missing = FIRST_RUN_FIELDS.filter((f) => typeof report?.[f] !== 'number' && !(f.endsWith('Rate') && report?.[f] === null));
  if (report === null || missing.length)
    throw new UserError(
      `${path} is not a first run (${report === null ? 'not JSON' : `no number for ${missing.join(', ')}`}): it is the output of \`npx sandscope eval --corpus … --questions … --json\` at the commit its corpus README names; restore it with \`git checkout -- ${path}\`.`,
    );
  return report as unknown as FirstRun['report'];
}
