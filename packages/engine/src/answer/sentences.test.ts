import { describe, expect, it } from 'vitest';
import { sentenceBlocksOf, sentencesOf, textSectionsOf } from './sentences.ts';

describe('sentences', () => {
  it('splits before a sentence that begins with a lower-case name (S-026)', () => {
    expect(sentencesOf('Backups are kept for 35 days. dock-scheduler has its own database.')).toEqual([
      'Backups are kept for 35 days.',
      'dock-scheduler has its own database.',
    ]);
    expect(sentencesOf('It waits 5 s. then retries.')).toEqual(['It waits 5 s. then retries.']);
  });

  it('ends no sentence at an abbreviation’s full stop, so an example keeps its command (S-164)', () => {
    expect(sentencesOf('Roll back the release (e.g. `helm rollback web 3`) first. Compare i.e. Grafana and logs, vs. Loki. Then page.')).toEqual([
      'Roll back the release (e.g. `helm rollback web 3`) first.',
      'Compare i.e. Grafana and logs, vs. Loki.',
      'Then page.',
    ]);
  });

  it('groups sentences by list item or paragraph, under the sub-heading it stands under, joining hard-wrapped lines', () => {
    const blocks = sentenceBlocksOf(
      '- `playback-api` serves manifests. It runs 12 replicas.\n- `catalog-api` serves titles.\n\n## Topics\n\nEvery topic has 48\npartitions. Keyed by id.',
    );
    expect(blocks).toEqual([
      { subheading: null, sentences: ['`playback-api` serves manifests.', 'It runs 12 replicas.'] },
      { subheading: null, sentences: ['`catalog-api` serves titles.'] },
      { subheading: 'Topics', sentences: ['Every topic has 48 partitions.', 'Keyed by id.'] },
    ]);
  });

  it('keeps a fenced block’s lines as written: shell comments, `---`, and indentation inside the fence', () => {
    const text = [
      '1. Apply the patch:',
      '',
      '   ```yaml',
      '   # keep the pool small while draining',
      '   ---',
      '   spec:',
      '     replicas: 4',
      '   ```',
      '',
      '```',
      '# grep -c "FATAL: sorry, too many clients" /var/log/postgresql/*.log   ',
      '```',
    ].join('\n');
    expect(sentencesOf(text)).toEqual([
      'Apply the patch:',
      '# keep the pool small while draining',
      '---',
      'spec:',
      '  replicas: 4',
      '# grep -c "FATAL: sorry, too many clients" /var/log/postgresql/*.log',
    ]);
  });

  it('never cuts or strips an inline command: no bold-marker removal or sentence split inside a code span', () => {
    expect(sentencesOf('Run `rm -f /tmp/**/*.lock && python -m __main__ --msg "Done. Next"` first. **Then** check __the__ pool.')).toEqual([
      'Run `rm -f /tmp/**/*.lock && python -m __main__ --msg "Done. Next"` first.',
      'Then check the pool.',
    ]);
  });

  it('reads a one-line ```code``` as a code span, not a fence left open over the rest of the passage', () => {
    const text =
      'Search the logs for:\n\n```Did not get autocomplete suggestion```\n\n2. Check the `debug_error_string` field.\n\n## Impact\n\nUsers see no suggestions.';
    expect(textSectionsOf(text)).toEqual([
      {
        heading: null,
        level: null,
        blocks: [
          { kind: 'paragraph', sentences: ['Search the logs for:'] },
          { kind: 'paragraph', sentences: ['```Did not get autocomplete suggestion```'] },
          { kind: 'numbered', number: 2, sentences: ['Check the `debug_error_string` field.'] },
        ],
      },
      { heading: 'Impact', level: 2, blocks: [{ kind: 'paragraph', sentences: ['Users see no suggestions.'] }] },
    ]);
  });

  it('types each block and numbers the fences, under the merged sub-heading and level it stands under', () => {
    const sections = textSectionsOf('Intro.\n\n### Steps\n\n- one\n- two\n\n```\na\nb\n```\n\n| Key | Value |\n|---|---|\n| ttl | 30s |\n\n```\nc\n```');
    expect(sections.map((s) => [s.heading, s.level])).toEqual([
      [null, null],
      ['Steps', 3],
    ]);
    expect(sections[1]!.blocks.map((b) => [b.kind, b.sentences[0], b.fence])).toEqual([
      ['bulleted', 'one', undefined],
      ['bulleted', 'two', undefined],
      ['code', 'a', 0],
      ['code', 'b', 0],
      ['table', 'Key — Value', undefined],
      ['table', 'ttl — 30s', undefined],
      ['code', 'c', 1],
    ]);
  });

  it('reads a long run of backticks as it reads a short one (S-211)', () => {
    // Each length of the run was tried against the rest of the text: 2,400 backticks took 3.9 s to index, seven times
    // 1,200. Time is the only measure of that; the sentences a run of 30 and one of 200,000 make are named here.
    for (const n of [30, 200_000]) {
      const run = '`'.repeat(n);
      const sentences = sentencesOf(`Restart it. ${run} Then page. Use \`a. B\` here.`);
      expect(sentences.length).toBe(3);
      expect(sentences[0]).toBe('Restart it.');
      expect(sentences[1] === `${run} Then page. Use \`a.`).toBe(true);
      expect(sentences[2]).toBe('B` here.');
    }
  });
});
