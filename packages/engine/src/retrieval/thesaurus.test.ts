import { describe, expect, it } from 'vitest';
import { wordNetFixture } from './testing/wordnet-fixture.ts';
import { wordNetThesaurus } from './thesaurus.ts';
import { stem } from './tokenizer.ts';

describe('wordNetThesaurus', () => {
  const t = wordNetThesaurus(wordNetFixture);
  const related = (w: string) => t.related(stem(w));

  it('gives the words that share a sense, as index terms, never the word itself', () => {
    expect(related('exhausted')).toEqual(expect.arrayContaining([stem('depleted'), stem('tired')]));
    expect(related('exhausted')).not.toContain(stem('exhausted'));
    expect(related('depleted')).toEqual([stem('exhausted')]);
  });

  it('reads only the senses the sense-tagged corpus attests, and the first when none is', () => {
    expect(related('crash')).toEqual([stem('collapse')]);
    expect(related('die')).toEqual([stem('fail')]);
  });

  it('leaves out multi-word lemmas and words it does not know', () => {
    expect(related('fail')).toEqual([stem('die')]);
    expect(related('kubernetes')).toEqual([]);
  });
});
