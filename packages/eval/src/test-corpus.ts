import { readdirSync, readFileSync } from 'node:fs';
import { documentTitle, parseEstate, type SourceDocument } from '@sandscope/engine';

/** The repository's corpus, read for tests (engine and eval stay free of file I/O themselves). */
export const CORPUS_DIR = new URL('../../../corpus/', import.meta.url);

export function readRepoCorpus() {
  const docsDir = new URL('docs/', CORPUS_DIR);
  const documents: SourceDocument[] = readdirSync(docsDir)
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((doc) => {
      const text = readFileSync(new URL(doc, docsDir), 'utf8');
      return { doc, title: documentTitle(doc, text), text };
    });
  const parsed = parseEstate(JSON.parse(readFileSync(new URL('estate.json', CORPUS_DIR), 'utf8')));
  if (!parsed.ok) throw new Error(parsed.message);
  return { documents, estate: parsed.estate, gapsMarkdown: readFileSync(new URL('GAPS.md', CORPUS_DIR), 'utf8') };
}
