import { join } from 'node:path';
import { parseExclude } from 'sandscope/corpus';

export { GENERATED, loadEvalCorpora, loadGeneratedSet, statusOf } from 'sandscope/corpus';
export const EVAL_CORPORA_DIR = 'eval-corpora';
export const corporaDir = (root: string) => join(root, EVAL_CORPORA_DIR);

/** `--exclude a,b` on a script's command line. */
export function excludedCorpora(argv: readonly string[]): Set<string> {
  const i = argv.indexOf('--exclude');
  return parseExclude(i >= 0 ? argv[i + 1] : undefined);
}
