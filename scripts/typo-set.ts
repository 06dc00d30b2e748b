// `npm run -s eval:typos -- CORPUS_DIR OUT.jsonl [--seed N]`: the corpus's question set with one slip of the keys in each
// question, as a person typing fast makes them (`typedQuestions`), to measure what a typo costs (issue 9, class 5; S-173).
// The record measures the same, held out (`npm run eval:report`, seed 1); this writes the set for a judge of its own.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseQuestionsJsonl } from '@sandscope/eval';
import { loadCorpusSource, typedQuestions } from 'sandscope/corpus';
import { UserError } from 'sandscope/user-error';
import { runScript } from './script-boundary.ts';

await runScript('eval:typos', async () => {
  const args = process.argv.slice(2);
  const seedAt = args.indexOf('--seed');
  const seed = seedAt >= 0 ? Number(args[seedAt + 1]) : 1;
  const [corpusDir, out] = seedAt < 0 ? args : args.filter((_, i) => i !== seedAt && i !== seedAt + 1);
  if (!corpusDir || !out || !Number.isInteger(seed)) throw new UserError('usage: npm run -s eval:typos -- CORPUS_DIR OUT.jsonl [--seed N]');
  const source = loadCorpusSource(corpusDir);
  const file = join(corpusDir, 'questions.jsonl');
  if (!existsSync(file)) throw new UserError(`${file} not found: CORPUS_DIR must hold the corpus's questions.jsonl beside its docs/.`);
  const { questions } = parseQuestionsJsonl(readFileSync(file, 'utf8'));
  const typed = typedQuestions(source, questions, seed);
  try {
    writeFileSync(out, `${typed.questions.map((q) => JSON.stringify(q)).join('\n')}\n`);
  } catch (error) {
    throw new UserError(`cannot write ${out} (${error instanceof Error ? error.message : String(error)}): name a file in a folder that exists.`);
  }
  console.log(`${questions.length} questions, ${questions.length - typed.untouched} with one slip, ${typed.untouched} with no word to slip on → ${out}`);
});
