import { describe, expect, it } from 'vitest';
import { sentenceBlocksOf, sentencesOf } from './sentences.ts';

describe('sentences', () => {
  it('splits before a sentence that begins with a lower-case name (S-026)', () => {
    expect(sentencesOf('Backups are kept for 35 days. dock-scheduler has its own database.')).toEqual([
      'Backups are kept for 35 days.',
      'dock-scheduler has its own database.',
    ]);
    expect(sentencesOf('It waits 5 s. then retries.')).toEqual(['It waits 5 s. then retries.']);
  });

  it('groups sentences by list item or paragraph, under the sub-heading it stands under, joining hard-wrapped lines', () => {
    const blocks = sentenceBlocksOf('- `playback-api` serves manifests. It runs 12 replicas.\n- `catalog-api` serves titles.\n\n## Topics\n\nEvery topic has 48\npartitions. Keyed by id.');
    expect(blocks).toEqual([
      { subheading: null, sentences: ['`playback-api` serves manifests.', 'It runs 12 replicas.'] },
      { subheading: null, sentences: ['`catalog-api` serves titles.'] },
      { subheading: 'Topics', sentences: ['Every topic has 48 partitions.', 'Keyed by id.'] },
    ]);
  });
});
