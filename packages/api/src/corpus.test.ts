import { describe, expect, it } from 'vitest';
import { corpusSchema } from './corpus.ts';

const corpus = {
  version: 'kb-1',
  documents: [{ doc: 'orders-db.md', title: 'orders-db', text: 'The pool ceiling is 200.', words: 5 }],
  chunks: [{ id: 'orders-db#pool', doc: 'orders-db.md', heading: 'Pool' }],
  gaps: [
    { topic: 'TLS renewal', terms: ['tls', 'certificate'], correction: false },
    { topic: 'Failover', terms: ['failover'], correction: true },
  ],
  questions: { total: 2, byMechanism: { 'section-lookup': { label: 'answerable', n: 2 } } },
};

describe('corpusSchema', () => {
  it('parses a corpus view with its gaps and corrections', () => {
    expect(
      corpusSchema
        .parse(corpus)
        .gaps.filter((g) => g.correction)
        .map((g) => g.topic),
    ).toEqual(['Failover']);
  });

  it('refuses a chunk whose heading is renamed', () => {
    const chunks = corpus.chunks.map(({ heading, ...rest }) => ({ ...rest, title: heading }));
    expect(corpusSchema.safeParse({ ...corpus, chunks }).success).toBe(false);
  });

  it('refuses a gap whose correction is text (the agent sends a boolean; the hand-written copy allowed a string)', () => {
    const gaps = [{ ...corpus.gaps[0], correction: 'covered in failover.md' }];
    expect(corpusSchema.safeParse({ ...corpus, gaps }).success).toBe(false);
  });

  it('refuses a document without its word count', () => {
    const documents = corpus.documents.map(({ words: _, ...rest }) => rest);
    expect(corpusSchema.safeParse({ ...corpus, documents }).success).toBe(false);
  });
});
