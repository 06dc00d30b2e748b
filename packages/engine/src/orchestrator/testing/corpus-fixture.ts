import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { documentTitle } from '../../corpus/chunker.ts';
import { parseEstate } from '../../corpus/estate.ts';
import type { Bands } from '../../answerability/model.ts';
import { KnowledgeBase } from '../../knowledge-base.ts';
import type { SourceDocument } from '../../types.ts';

/** The repository root, for tests that check repo paths. */
export const REPO_ROOT = fileURLToPath(new URL('../../../../../', import.meta.url));

export const CORPUS_DIR = `${REPO_ROOT}corpus/`;

/**
 * The repository's corpus as a knowledge base, for tests (the engine itself
 * does no I/O; this file is test support), decided by the shipped model. A test
 * of where the graph routes a run may pass `bands` to put its question in the
 * band it exercises (the ambiguous band, say), so it does not move every time
 * the model is retrained.
 */
export async function corpusKnowledgeBase(bands?: Bands): Promise<KnowledgeBase> {
  const docsDir = `${CORPUS_DIR}docs/`;
  const documents: SourceDocument[] = readdirSync(docsDir)
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((doc) => {
      const text = readFileSync(`${docsDir}${doc}`, 'utf8');
      return { doc, title: documentTitle(doc, text), text };
    });
  const estate = parseEstate(JSON.parse(readFileSync(`${CORPUS_DIR}estate.json`, 'utf8')));
  if (!estate.ok) throw new Error(estate.message);
  return KnowledgeBase.build({ documents, estate: estate.estate, ...(bands ? { bands } : {}) });
}
