import { describe, expect, it } from 'vitest';
import type { Chunk } from '../types.ts';
import { answerText } from './answer-text.ts';
import { sentencesOf } from './sentences.ts';

const text = [
  'Restore into another namespace with the mapping flag.',
  '',
  '1. Stop the writers. Wait for the queue to drain.',
  '2. Run the restore:',
  '',
  '```sh',
  'velero restore create r1 \\',
  '  --from-backup b1 \\',
  '  --namespace-mappings a:b',
  '```',
  '',
  '- Check the pods.',
  '',
  'The restore keeps the volumes. It does not keep the events.',
].join('\n');
const chunk = { id: 'restore#into-another-namespace', doc: 'restore', heading: 'Restore', text } as Chunk;
const chunkOf = (id: string) => (id === chunk.id ? chunk : undefined);

describe('answerText (issue 9 E: commands kept verbatim, steps kept steps)', () => {
  it('prints a fenced command whole, as a block, list items on lines of their own, numbered as their list was, and prose run together', () => {
    const claims = sentencesOf(text).map((s) => ({ text: s, citations: [chunk.id] }));
    expect(answerText(claims, [chunk.id], chunkOf)).toBe(
      [
        'Restore into another namespace with the mapping flag. [1]',
        '1. Stop the writers. [1] Wait for the queue to drain. [1]',
        '2. Run the restore: [1]',
        '```',
        'velero restore create r1 \\',
        '  --from-backup b1 \\',
        '  --namespace-mappings a:b',
        '```',
        '[1]',
        '- Check the pods. [1]',
        'The restore keeps the volumes. [1] It does not keep the events. [1]',
      ].join('\n'),
    );
  });

  it('runs a claim it cannot place (a passage not at hand, a sentence rewritten) into the prose, as before', () => {
    const claims = [
      { text: 'Something said elsewhere.', citations: ['other#passage'] },
      { text: '  --from-backup b1 \\', citations: [chunk.id] },
      { text: 'A sentence the passage does not hold.', citations: [chunk.id] },
    ];
    expect(answerText(claims, ['other#passage', chunk.id], chunkOf)).toBe(
      'Something said elsewhere. [1]\n```\n  --from-backup b1 \\\n```\n[2]\nA sentence the passage does not hold. [2]',
    );
  });
});
