import { describe, expect, it } from 'vitest';
import { decodeSnapshot, encodeSnapshot, type IndexParts } from './knowledge-base-snapshot.ts';
import { HybridRetriever } from './retrieval/hybrid-retriever.ts';
import type { Chunk } from './types.ts';

describe('index snapshot codec', () => {
  it('holds lists longer than a call can take as arguments (the 100k-passage bench overflowed the stack)', async () => {
    const chunks: Chunk[] = [{ id: 'a#b', doc: 'a.md', docTitle: 'A', heading: 'B', level: 2, path: ['Top', 'Mid'], text: 'orders-db pool ceiling' }];
    const retriever = await HybridRetriever.build(chunks, null);
    const many = Array.from({ length: 300_000 }, (_, i) => `word${i}`);
    const index: IndexParts = {
      version: 'v',
      chunks,
      retriever: retriever.parts,
      lexicon: { names: many, multiWord: [], aliases: many.slice(0, 1000).map((w) => [w, `${w}-x`] as const), vocabulary: many, subjects: [] },
      documents: new Map(),
      names: new Set(many),
      hazards: new Map(),
    };
    const back = decodeSnapshot(encodeSnapshot(index));
    expect(back.names.size).toBe(300_000);
    expect(back.lexicon.vocabulary.at(-1)).toBe('word299999');
    expect(back.lexicon.aliases[999]).toEqual(['word999', 'word999-x']);
    expect(JSON.stringify(back.chunks)).toBe(JSON.stringify(chunks));
    expect([...back.retriever.bm25.postings.keys()]).toEqual([...retriever.parts.bm25.postings.keys()]);
  });
});
