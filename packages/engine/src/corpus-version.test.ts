import { describe, expect, it } from 'vitest';
import { corpusVersion } from './knowledge-base.ts';
import { fnv1a } from './retrieval/hashing-embedder.ts';
import type { SourceDocument } from './types.ts';

/** The definition corpusVersion had before it was computed in one pass (issue 11): run records carry it, so it must not move. */
function reference(documents: readonly SourceDocument[]): string {
  const sorted = [...documents].sort((a, b) => a.doc.localeCompare(b.doc));
  const joined = sorted.map((d) => `${d.doc}\u0000${d.text}`).join('\u0001');
  return `${fnv1a(joined).toString(16).padStart(8, '0')}${fnv1a(`${joined.length}:${joined}`).toString(16).padStart(8, '0')}`;
}

describe('corpus version', () => {
  it('is the FNV-1a pair of the joined documents it always was', () => {
    const docs: SourceDocument[] = [
      { doc: 'b.md', title: 'B', text: '# B\n\nOrders-db pool ceiling is 100 — “quoted” ✓.' },
      { doc: 'a.md', title: 'A', text: '# A\n\nDisk alert at 85%.' },
      { doc: 'c/d.md', title: 'D', text: '' },
    ];
    for (const set of [[], docs.slice(0, 1), docs]) expect(corpusVersion(set)).toBe(reference(set));
    expect(corpusVersion(docs)).toBe('15690ef27667e969');
  });
});
