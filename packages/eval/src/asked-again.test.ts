import { describe, expect, it } from 'vitest';
import { countAskedAgain, poolAskedAgain } from './asked-again.ts';
import type { Outcome } from './metrics.ts';

const outcome = (id: string, label: Outcome['label'], verdict: Outcome['verdict'], source: Outcome['source'] = null): Outcome => ({
  id,
  corpus: 'c',
  mechanism: 'm',
  label,
  band: verdict === 'refused' ? 'insufficient' : 'sufficient',
  verdict,
  answerability: 0.5,
  rank: 1,
  hasExpected: true,
  source,
  stepsCovered: null,
});

describe('asking a typed refusal again with the question it offers (S-180)', () => {
  const typed = [
    outcome('a', 'answerable', 'refused'),
    outcome('b', 'answerable', 'refused'),
    outcome('c', 'answerable', 'refused'),
    outcome('d', 'unanswerable', 'refused'),
    outcome('e', 'unanswerable', 'refused'),
    // Answered as typed: an answer offers nothing, whatever was measured for it.
    outcome('f', 'answerable', 'answered', 'right'),
    // Refused, but its refusal offered nothing (no question was measured for it).
    outcome('g', 'answerable', 'refused'),
    outcome('h', 'answerable', 'refused'),
  ];
  const again = new Map(
    [
      outcome('a', 'answerable', 'answered', 'right'),
      outcome('b', 'answerable', 'partial', 'right'),
      // Answered again, from another passage: answered, not from the labelled one.
      outcome('h', 'answerable', 'answered', 'wrong'),
      outcome('c', 'answerable', 'refused'),
      outcome('d', 'unanswerable', 'answered'),
      outcome('e', 'unanswerable', 'refused'),
      outcome('f', 'answerable', 'answered', 'right'),
    ].map((o) => [o.id, o]),
  );
  const clean = new Map(
    [
      outcome('a', 'answerable', 'answered', 'right'),
      outcome('b', 'answerable', 'refused'),
      outcome('c', 'answerable', 'answered', 'right'),
      outcome('d', 'unanswerable', 'refused'),
      outcome('e', 'unanswerable', 'partial'),
    ].map((o) => [o.id, o]),
  );

  it('counts only refusals that offered a question, a partial answer as answered, and the clean verdict beside each', () => {
    expect(countAskedAgain(typed, again, clean)).toEqual({
      offered: 6,
      answerable: 4,
      answered: 3,
      rightSource: 2,
      cleanAnswered: 2,
      unanswerable: 2,
      falseAnswers: 1,
      cleanFalseAnswers: 1,
    });
  });

  it('pools corpora by adding their counts', () => {
    const one = countAskedAgain(typed, again, clean);
    expect(poolAskedAgain([one, one])).toEqual(Object.fromEntries(Object.entries(one).map(([k, v]) => [k, 2 * v])));
  });
});
