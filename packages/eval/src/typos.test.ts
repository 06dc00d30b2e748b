import { stem } from '@sandscope/engine';
import { describe, expect, it } from 'vitest';
import type { EvalQuestion } from './question-set.ts';
import { withOneSlip } from './typos.ts';

const LIBRARY = new Set(['connection', 'pool', 'exhausted', 'restarting', 'replica', 'certificates'].map(stem));
const uses = (t: string) => LIBRARY.has(t);
const question = (id: string, text: string): EvalQuestion => ({
  id,
  question: text,
  label: 'answerable',
  mechanism: 'what-to-do',
  evidence: 'restart the pooler',
});

/** Whether `b` is `a` with one letter left out, added, changed, or two neighbours swapped. */
function oneSlipApart(a: string, b: string): boolean {
  if (a === b) return false;
  let i = 0;
  while (i < Math.min(a.length, b.length) && a[i] === b[i]) i++;
  const rest = (x: string, n: number) => x.slice(i + n);
  return (
    rest(a, 1) === rest(b, 0) || rest(a, 0) === rest(b, 1) || rest(a, 1) === rest(b, 1) || (a[i] === b[i + 1] && a[i + 1] === b[i] && rest(a, 2) === rest(b, 2))
  );
}

describe('withOneSlip (S-177)', () => {
  const questions = [
    question('a', 'why is the connection pool exhausted'),
    question('b', 'replica keeps restarting, what now'),
    question('c', 'is it up'),
    question('d', 'certificates of orders-db expired?'),
  ];

  it('types one slip in one word of five letters or more that the library uses, never at its first letter', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const typed = withOneSlip(questions, uses, seed);
      expect(typed.untouched).toBe(1);
      for (const [i, q] of typed.questions.entries()) {
        const was = questions[i]!;
        expect({ ...q, question: was.question }).toEqual(was);
        if (was.id === 'c') {
          expect(q.question).toBe(was.question);
          continue;
        }
        const before = was.question.split(/[\s,?]+/);
        const after = q.question.split(/[\s,?]+/);
        const changed = before.flatMap((w, j) => (w === after[j] ? [] : [[w, after[j]!] as const]));
        expect(changed, `${seed} ${q.question}`).toHaveLength(1);
        const [w, slipped] = changed[0]!;
        expect(w.length).toBeGreaterThanOrEqual(5);
        expect(LIBRARY.has(stem(w))).toBe(true);
        expect(slipped[0]).toBe(w[0]);
        expect(oneSlipApart(w, slipped), `${w} → ${slipped}`).toBe(true);
      }
    }
  });

  it('never slips in a name, a word the library does not use, or a short word', () => {
    const typed = withOneSlip([question('e', 'is orders-db up on kafka01 now'), question('f', 'where is grafana')], uses, 1);
    expect(typed.questions.map((q) => q.question)).toEqual(['is orders-db up on kafka01 now', 'where is grafana']);
    expect(typed.untouched).toBe(2);
  });

  it('types the same slips for the same seed, and others for another', () => {
    expect(withOneSlip(questions, uses, 4)).toEqual(withOneSlip(questions, uses, 4));
    const texts = (seed: number) => withOneSlip(questions, uses, seed).questions.map((q) => q.question);
    expect([2, 3, 5, 6].some((s) => texts(s).join() !== texts(4).join())).toBe(true);
  });
});
