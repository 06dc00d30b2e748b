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

  it('places a sentence the passage holds twice where the draft reached it, and numbers a second list from 1 (S-146)', () => {
    const twoLists = {
      id: 'resets#steps',
      text: [
        'Enable SYN cookies in Linux:',
        '',
        '1. Check the setting.',
        '2. Set `net.ipv4.tcp_syncookies=1`.',
        '3. Apply the configuration.',
        '',
        'Enable SYN cookies in FreeBSD:',
        '',
        '1. Check the setting.',
        '2. Set `net.inet.tcp.syncookies_only=1`.',
        '3. Apply the configuration.',
        '',
        'Lazy lists count on:',
        '',
        '1. One.',
        '1. Two.',
        '1. Drain the node.',
        '1. Drain the node.',
      ].join('\n'),
    };
    const parts = answerLayout(
      sentencesOf(twoLists.text).map((text) => ({ text, citations: [twoLists.id] })),
      () => twoLists,
    ).map((p) => [p.kind, p.claims.map((c) => c.text).join(' '), p.kind === 'item' ? p.step : undefined]);
    expect(parts).toEqual([
      ['prose', 'Enable SYN cookies in Linux:', undefined],
      ['item', 'Check the setting.', 1],
      ['item', 'Set `net.ipv4.tcp_syncookies=1`.', 2],
      ['item', 'Apply the configuration.', 3],
      ['prose', 'Enable SYN cookies in FreeBSD:', undefined],
      ['item', 'Check the setting.', 1],
      ['item', 'Set `net.inet.tcp.syncookies_only=1`.', 2],
      ['item', 'Apply the configuration.', 3],
      ['prose', 'Lazy lists count on:', undefined],
      ['item', 'One.', 1],
      ['item', 'Two.', 2],
      // The same step twice is two steps, not one item said twice.
      ['item', 'Drain the node.', 3],
      ['item', 'Drain the node.', 4],
    ]);
  });
});
