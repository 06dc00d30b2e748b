import { describe, expect, it } from 'vitest';
import { answerLayout } from './answer-layout.ts';
import { sentencesOf } from './sentences.ts';

const passage = {
  id: 'failover#steps',
  text: [
    'Fail over only when the primary is gone.',
    '',
    '1. Stop the writers.',
    '2. Promote the replica:',
    '',
    '   ```sh',
    '   pgctl promote \\',
    '     --replica db-2',
    '   ```',
    '',
    '   - Wait for the promotion to finish.',
    '3. Point the pooler at db-2.',
    '',
    'The old primary is rebuilt later.',
  ].join('\n'),
};
const claimsOf = (texts: readonly string[]) => texts.map((text) => ({ text, citations: [passage.id] }));
const layout = (texts: readonly string[]) =>
  answerLayout(claimsOf(texts), () => passage).map((p) => ({
    kind: p.kind,
    texts: p.claims.map((c) => c.text),
    ...(p.kind === 'item' ? { step: p.step } : {}),
  }));

describe('answerLayout (issue 9 E: the shape the claims had in their passage, for the answer text and the run page)', () => {
  it('makes a fenced command one part, each list item a part numbered as in its passage, and prose one paragraph', () => {
    expect(layout(sentencesOf(passage.text))).toEqual([
      { kind: 'prose', texts: ['Fail over only when the primary is gone.'] },
      { kind: 'item', texts: ['Stop the writers.'], step: 1 },
      { kind: 'item', texts: ['Promote the replica:'], step: 2 },
      { kind: 'code', texts: ['pgctl promote \\', '  --replica db-2'] },
      { kind: 'item', texts: ['Wait for the promotion to finish.'], step: null },
      // A command and a sub-list inside step 2 do not restart the count.
      { kind: 'item', texts: ['Point the pooler at db-2.'], step: 3 },
      { kind: 'prose', texts: ['The old primary is rebuilt later.'] },
    ]);
  });

  it('keeps a left-out step’s gap, and prints as prose a claim it cannot place', () => {
    expect(layout(['Stop the writers.', 'Point the pooler at db-2.', 'A sentence the passage does not hold.'])).toEqual([
      { kind: 'item', texts: ['Stop the writers.'], step: 1 },
      { kind: 'item', texts: ['Point the pooler at db-2.'], step: 3 },
      { kind: 'prose', texts: ['A sentence the passage does not hold.'] },
    ]);
    const unplaced = answerLayout(claimsOf(['Stop the writers.']), () => undefined);
    expect(unplaced).toEqual([{ kind: 'prose', claims: claimsOf(['Stop the writers.']) }]);
  });
});
