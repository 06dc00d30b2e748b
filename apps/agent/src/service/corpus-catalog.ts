import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { Corpus, Library, LibraryView } from '@sandscope/api/corpus';
import type { KnowledgeBase } from '@sandscope/engine';
import { parseGaps } from '@sandscope/eval/gaps';
import { parseQuestionsJsonl } from '@sandscope/eval/question-set';
import { type CorpusSource, DEFAULT_CORPUS_DIR } from '../corpus-source.ts';

/** `GET /v1/corpus`: the shared contract's type, so a field this builds differently from what the website parses is a compile error here. */
export type CorpusView = Corpus & { library: Library };

/**
 * What the website's data page reads, built once at start-up from the same
 * corpus the knowledge base was built from. The corpus is immutable at runtime
 * (T-4/T-5), so this never changes while the process lives.
 */
export function buildCorpusView(source: CorpusSource, kb: KnowledgeBase): CorpusView {
  return {
    version: kb.version,
    documents: source.documents.map((d) => ({ doc: d.doc, title: d.title, text: d.text, words: d.text.split(/\s+/).filter(Boolean).length })),
    chunks: kb.chunks.map((c) => ({ id: c.id, doc: c.doc, heading: c.heading })),
    gaps: readGaps(join(source.root, 'GAPS.md')),
    questions: countQuestions(join(source.root, 'questions.jsonl')),
    library: { name: basename(source.root), bundled: source.root === DEFAULT_CORPUS_DIR },
  };
}

/** `GET /v1/library`: the corpus view's library, named and sized, without a document's text. */
export function libraryViewOf(corpus: CorpusView): LibraryView {
  return { ...corpus.library, version: corpus.version, documents: corpus.documents.length, passages: corpus.chunks.length };
}

function readGaps(path: string): CorpusView['gaps'] {
  if (!existsSync(path)) return [];
  return parseGaps(readFileSync(path, 'utf8')).map((g) => ({ topic: g.topic, terms: [...g.terms], correction: g.correction }));
}

/** Counts per mechanism; a mechanism whose questions carry both labels says `mixed`. Malformed lines are not counted. */
function countQuestions(path: string): CorpusView['questions'] {
  if (!existsSync(path)) return { total: 0, byMechanism: {} };
  const { questions } = parseQuestionsJsonl(readFileSync(path, 'utf8'));
  const byMechanism: Record<string, { label: string; n: number }> = {};
  for (const q of questions) {
    const row = (byMechanism[q.mechanism] ??= { label: q.label, n: 0 });
    row.n += 1;
    if (row.label !== q.label) row.label = 'mixed';
  }
  return { total: questions.length, byMechanism };
}
