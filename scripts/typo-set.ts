// `npm run -s eval:typos -- CORPUS_DIR OUT.jsonl [--seed N]`: the corpus's question set with one slip of the keys in each
// question, as a person typing fast makes them, to measure what a typo costs (issue 9, class 5; S-173). Each question
// gets one: in a word of plain letters, at least five long, that the library uses (so the slip makes a word it does
// not), never its first letter (slips there are rare: Pollock and Zamora, 1983) — a letter left out, doubled, swapped
// with the next, or struck as its neighbour on a QWERTY keyboard, one of the four by the seeded generator. A question
// with no such word is written as it was, and counted. Labels and evidence are kept: the library is the same.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseQuestionsJsonl, seededRandom } from '@sandscope/eval';
import { stem, tokenize } from '@sandscope/engine';
import { loadCorpusSource } from 'sandscope/corpus';
import { UserError } from 'sandscope/user-error';
import { runScript } from './script-boundary.ts';

const NEIGHBOURS: Record<string, string> = {
  q: 'wa',
  w: 'qes',
  e: 'wrd',
  r: 'etf',
  t: 'ryg',
  y: 'tuh',
  u: 'yij',
  i: 'uok',
  o: 'ipl',
  p: 'o',
  a: 'qsz',
  s: 'awdz',
  d: 'sefx',
  f: 'drgc',
  g: 'fthv',
  h: 'gyjb',
  j: 'hukn',
  k: 'jilm',
  l: 'ko',
  z: 'asx',
  x: 'zsdc',
  c: 'xdfv',
  v: 'cfgb',
  b: 'vghn',
  n: 'bhjm',
  m: 'njk',
};

/** One slip in `word` (lower-case letters), never at its first letter. */
function slip(word: string, random: () => number): string {
  const at = 1 + Math.floor(random() * (word.length - 1));
  const kind = Math.floor(random() * 4);
  const c = word[at]!;
  if (kind === 0) return word.slice(0, at) + word.slice(at + 1);
  if (kind === 1) return word.slice(0, at) + c + word.slice(at);
  if (kind === 2 && at < word.length - 1) return word.slice(0, at) + word[at + 1] + c + word.slice(at + 2);
  const near = NEIGHBOURS[c] ?? c;
  return word.slice(0, at) + near[Math.floor(random() * near.length)]! + word.slice(at + 1);
}

await runScript('eval:typos', async () => {
  const args = process.argv.slice(2);
  const seedAt = args.indexOf('--seed');
  const seed = seedAt >= 0 ? Number(args[seedAt + 1]) : 1;
  const [corpusDir, out] = seedAt < 0 ? args : args.filter((_, i) => i !== seedAt && i !== seedAt + 1);
  if (!corpusDir || !out || !Number.isInteger(seed)) throw new UserError('usage: npm run -s eval:typos -- CORPUS_DIR OUT.jsonl [--seed N]');
  const source = loadCorpusSource(corpusDir);
  const library = new Set(source.documents.flatMap((d) => tokenize(d.text)));
  const file = join(corpusDir, 'questions.jsonl');
  if (!existsSync(file)) throw new UserError(`${file} not found: CORPUS_DIR must hold the corpus's questions.jsonl beside its docs/.`);
  const { questions } = parseQuestionsJsonl(readFileSync(file, 'utf8'));
  const random = seededRandom(seed);
  let untouched = 0;
  const lines = questions.map((q) => {
    const words = [...q.question.matchAll(/(?<![\w./-])[A-Za-z]{5,}(?![\w/-]|\.\w)/g)].filter((m) => /^[a-z]+$/.test(m[0]) && library.has(stem(m[0])));
    if (!words.length) {
      untouched++;
      return JSON.stringify(q);
    }
    const m = words[Math.floor(random() * words.length)]!;
    const typed = slip(m[0], random);
    return JSON.stringify({ ...q, question: q.question.slice(0, m.index) + typed + q.question.slice(m.index! + m[0].length) });
  });
  try {
    writeFileSync(out, `${lines.join('\n')}\n`);
  } catch (error) {
    throw new UserError(`cannot write ${out} (${error instanceof Error ? error.message : String(error)}): name a file in a folder that exists.`);
  }
  console.log(`${questions.length} questions, ${questions.length - untouched} with one slip, ${untouched} with no word to slip on → ${out}`);
});
