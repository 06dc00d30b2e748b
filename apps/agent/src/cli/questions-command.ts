import { join } from 'node:path';
import { generateQuestions, toJsonl } from '@sandscope/eval';
import { corpusDirOf, loadCorpusSource } from '../corpus-source.ts';
import { knowledgeBaseOf } from '../knowledge-base-of.ts';
import { parseCommandOptions } from './args.ts';
import { gapsOf, parseSeed } from './eval-support.ts';
import { checkOutFile, writeOutFile } from './out-file.ts';

/** `sandscope questions [--corpus DIR] [--out FILE] [--seed N] [--force]`: write the generated question set as JSONL (an existing file only with --force). */
export async function questionsCommand(argv: string[]): Promise<number> {
  const { values } = parseCommandOptions('questions', argv, {
    corpus: { type: 'string' },
    out: { type: 'string' },
    seed: { type: 'string' },
    force: { type: 'boolean', default: false },
  });
  const seed = parseSeed(values.seed);
  // Checked before the corpus is indexed and the set generated, so a mistyped --out costs one line, not a minute.
  if (values.out !== undefined) checkOutFile(values.out, '--out', values.force);
  const source = loadCorpusSource(corpusDirOf(values.corpus).dir);
  const out = values.out ?? join(source.root, 'questions.jsonl');
  // The default is the corpus's own question set, hand-labelled for the development corpora: checked before indexing too.
  if (values.out === undefined) checkOutFile(out, '--out', values.force);
  const kb = await knowledgeBaseOf(source, { shippedBands: true });
  const questions = generateQuestions({ chunks: kb.chunks, estate: source.estate, gaps: gapsOf(source), ...(seed !== undefined ? { seed } : {}) });
  writeOutFile(out, toJsonl(questions), '--out');
  const by = new Map<string, number>();
  for (const q of questions) by.set(q.mechanism, (by.get(q.mechanism) ?? 0) + 1);
  process.stdout.write(`Wrote ${questions.length} questions to ${out}\n${[...by].map(([m, n]) => `  ${m}: ${n}`).join('\n')}\n`);
  return 0;
}
