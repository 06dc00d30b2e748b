import { describe, expect, it } from 'vitest';
import type { Chunk } from '../types.ts';
import { Bm25Index } from './bm25.ts';
import { cosine, type Embedder, EmbedderUnavailableError } from './embedder.ts';
import { HashingEmbedder } from './hashing-embedder.ts';
import { DENSE_WEIGHT, HybridRetriever, indexText, LEXICAL_WEIGHT } from './hybrid-retriever.ts';

const chunk = (id: string, heading: string, text: string): Chunk => ({ id, doc: `${id.split('#')[0]}.md`, docTitle: 'Notes', heading, text });
const chunks = [
  chunk('db#pool', 'orders-db connection pool ceiling', 'orders-db accepts at most 100 connections through its pooler.'),
  chunk('bus#lag', 'events-bus consumer lag', 'Consumer lag on events-bus pages when it exceeds 50000 messages.'),
  chunk('disk#alert', 'Disk pressure', 'The disk alert fires at 85 percent usage on any volume.'),
];

class BrokenEmbedder implements Embedder {
  readonly id = 'broken';
  readonly dimensions = 768;
  readonly cacheSimilarityThreshold = 0.9;
  async embed(): Promise<Float32Array[]> {
    throw new EmbedderUnavailableError('connection refused');
  }
}

describe('hybrid retriever', () => {
  it('carries the raw, unnormalised BM25 and cosine on every result and ranks by 0.6/0.4 fusion', async () => {
    const embedder = new HashingEmbedder();
    const r = await HybridRetriever.build(chunks, embedder);
    const q = 'connection pool ceiling for orders-db';
    const { results, degraded } = await r.search(q, 3);
    expect(degraded).toBe(false);
    const bm25 = new Bm25Index(chunks.map(indexText)).scores(q);
    const qv = embedder.embedOne(q);
    const dense = chunks.map((c) => cosine(qv, embedder.embedOne(indexText(c))));
    const top = results[0]!;
    expect(top.chunk.id).toBe('db#pool');
    expect(top.bm25).toBeCloseTo(bm25[0]!, 4);
    expect(top.dense!).toBeCloseTo(dense[0]!, 4);
    const maxL = Math.max(...bm25);
    const maxD = Math.max(...dense);
    for (const res of results) {
      const i = chunks.indexOf(res.chunk);
      expect(res.fused).toBeCloseTo(LEXICAL_WEIGHT * (bm25[i]! / maxL) + DENSE_WEIGHT * (Math.max(0, dense[i]!) / maxD), 4);
    }
  });

  it('degrades to lexical-only and says so when the embedder is unavailable', async () => {
    const r = await HybridRetriever.build(chunks, new BrokenEmbedder());
    const res = await r.search('consumer lag on events-bus');
    expect(res.degraded).toBe(true);
    expect(res.degradedReason).toMatch(/connection refused/);
    expect(res.results[0]!.chunk.id).toBe('bus#lag');
    expect(res.results[0]!.dense).toBeNull();
  });
});
