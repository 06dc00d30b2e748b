import { describe, expect, expectTypeOf, it } from 'vitest';
import type { Terminal, Verdict } from '../types.ts';
import { OUTCOME_WORDS, OUTCOMES, type Outcome, outcomeHasAnswer, outcomeOf } from './outcome.ts';

// Every value of each union, checked against the union at compile time so a new verdict or terminal fails here first.
const VERDICTS = ['answered', 'partial', 'refused'] as const;
const TERMINALS = ['refuse', 'escalate', 'await_approval', 'emit'] as const;
expectTypeOf<(typeof VERDICTS)[number]>().toEqualTypeOf<Verdict>();
expectTypeOf<(typeof TERMINALS)[number]>().toEqualTypeOf<Terminal>();

/** The whole table, written out: rows are verdicts, columns terminals. */
const EXPECTED: Record<Verdict, Record<Terminal, Outcome>> = {
  answered: { refuse: 'refused', escalate: 'escalated', await_approval: 'awaiting_approval', emit: 'answered' },
  partial: { refuse: 'refused', escalate: 'escalated', await_approval: 'awaiting_approval', emit: 'partial' },
  refused: { refuse: 'refused', escalate: 'refused', await_approval: 'refused', emit: 'refused' },
};

describe('outcomeOf', () => {
  for (const verdict of VERDICTS) {
    for (const terminal of TERMINALS) {
      it(`verdict ${verdict} at terminal ${terminal} is ${EXPECTED[verdict][terminal]}`, () => {
        expect(outcomeOf(verdict, terminal)).toBe(EXPECTED[verdict][terminal]);
      });
    }
  }

  it('never calls a run answered unless it emitted with an answered verdict (the offline-failover contradiction)', () => {
    const answered = VERDICTS.flatMap((v) => TERMINALS.map((t) => [v, t] as const)).filter(([v, t]) => outcomeOf(v, t) === 'answered');
    expect(answered).toEqual([['answered', 'emit']]);
    expect(outcomeOf('answered', 'escalate')).not.toBe('answered');
  });

  it('shows an answer only for outcomes that carry a verified draft', () => {
    expect(OUTCOMES.filter(outcomeHasAnswer)).toEqual(['answered', 'partial', 'awaiting_approval']);
  });

  it('has words for every outcome, and no two headlines alike', () => {
    expect(Object.keys(OUTCOME_WORDS).sort()).toEqual([...OUTCOMES].sort());
    const titles = OUTCOMES.map((o) => OUTCOME_WORDS[o].title.split(' ')[0]);
    expect(new Set(titles).size).toBe(OUTCOMES.length);
  });
});
