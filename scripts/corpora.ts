import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FirstRun } from '@sandscope/eval';
import { parseExclude } from 'sandscope/corpus';

export { GENERATED, loadEvalCorpora, loadGeneratedSet, statusOf } from 'sandscope/corpus';
export const EVAL_CORPORA_DIR = 'eval-corpora';
export const corporaDir = (root: string) => join(root, EVAL_CORPORA_DIR);

/** `--exclude a,b` on a script's command line. */
export function excludedCorpora(argv: readonly string[]): Set<string> {
  const i = argv.indexOf('--exclude');
  return parseExclude(i >= 0 ? argv[i + 1] : undefined);
}

/** Every corpus's `first-run.json` (its unseen first run), by corpus name; corpora without one are left out. */
export function loadFirstRuns(dir: string): FirstRun[] {
  return readdirSync(dir)
    .sort()
    .filter((name) => existsSync(join(dir, name, 'first-run.json')))
    .map((name) => ({ name, report: JSON.parse(readFileSync(join(dir, name, 'first-run.json'), 'utf8')) }));
}
