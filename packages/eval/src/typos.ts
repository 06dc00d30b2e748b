import { stem } from '@sandscope/engine';
import type { EvalQuestion } from './question-set.ts';
import { seededRandom } from './rng.ts';

/**
 * Questions typed the way people type them at 3am: each with one slip of the keys (issue 9, class 5; S-173). The
 * hand-written sets are typed with care, and a gate measured only on them says nothing of a question with "conection"
 * in it — which, before S-173, was refused nearly always.
 *
 * Each question gets one slip, in a word of plain letters at least five long that the library uses (so the slip makes
 * a word it does not), never at its first letter (slips there are rare: Pollock and Zamora, 1983): a letter left out,
 * doubled, swapped with the next, or struck as its neighbour on a QWERTY keyboard, one of the four by the seeded
 * generator. A question with no such word is kept as written, and counted. Labels and evidence are kept: the library
 * is the same.
 */
export function withOneSlip(
  questions: readonly EvalQuestion[],
  /** Whether the library uses an index term (a stem). */
  uses: (term: string) => boolean,
  seed: number,
): { readonly questions: EvalQuestion[]; readonly untouched: number } {
  const random = seededRandom(seed);
  let untouched = 0;
  const typed = questions.map((q) => {
    const words = [...q.question.matchAll(SLIPPABLE)].filter((m) => /^[a-z]+$/.test(m[0]) && uses(stem(m[0])));
    if (!words.length) {
      untouched++;
      return q;
    }
    const m = words[Math.floor(random() * words.length)]!;
    return { ...q, question: q.question.slice(0, m.index) + slip(m[0], random) + q.question.slice(m.index! + m[0].length) };
  });
  return { questions: typed, untouched };
}

/** A word of plain letters, five or more, standing alone: not part of a name with digits, dots, slashes or hyphens. */
const SLIPPABLE = /(?<![\w./-])[A-Za-z]{5,}(?![\w/-]|\.\w)/g;

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

/** Each letter's neighbours on a QWERTY keyboard. */
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
