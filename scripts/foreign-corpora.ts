import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KnowledgeBase } from '@sandscope/engine';
import { evaluate, type ForeignCorpusResult, foreignResult } from '@sandscope/eval';
import { readQuestionFile } from '../apps/agent/src/cli/eval-support.ts';
import { loadCorpusSource } from '../apps/agent/src/corpus-source.ts';

export const FOREIGN_DIR = 'apps/agent/test-fixtures';

/** A fixture's status is the README line that starts "Status:"; a corpus without one says so. */
function statusOf(dir: string): string {
  const readme = join(dir, 'README.md');
  const line = existsSync(readme) ? readFileSync(readme, 'utf8').split('\n').find((l) => l.startsWith('Status:')) : undefined;
  return line ? line.replace(/^Status:\s*/, '').trim() : 'no status recorded';
}

/**
 * Score every corpus under apps/agent/test-fixtures that carries a questions.jsonl,
 * with the thresholds the product ships (corpus/thresholds.json) — never fitted on it.
 */
export async function evaluateForeignCorpora(root: string): Promise<ForeignCorpusResult[]> {
  const base = join(root, FOREIGN_DIR);
  const out: ForeignCorpusResult[] = [];
  for (const name of readdirSync(base).sort()) {
    const dir = join(base, name);
    if (!existsSync(join(dir, 'questions.jsonl'))) continue;
    const source = loadCorpusSource(dir);
    if (source.thresholdsFrom !== 'shipped') throw new Error(`${dir} carries its own thresholds.json: a foreign corpus is scored with what ships, never fitted on`);
    const kb = await KnowledgeBase.build({ documents: source.documents, estate: source.estate, ...(source.thresholds ? { thresholds: source.thresholds } : {}) });
    const report = await evaluate(kb, readQuestionFile(join(dir, 'questions.jsonl'), false), { shipped: kb.thresholds });
    out.push(foreignResult(name, statusOf(dir), report));
  }
  return out;
}
