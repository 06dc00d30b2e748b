import { describe, expect, it } from 'vitest';
import type { Chunk } from '../types.ts';
import { Bm25Index } from './bm25.ts';
import { cosine, type Embedder, EmbedderUnavailableError } from './embedder.ts';
import { gateFeatures } from './gate-features.ts';
import { HashingEmbedder } from './hashing-embedder.ts';
import { DENSE_WEIGHT, HybridRetriever, indexText, LEXICAL_WEIGHT } from './hybrid-retriever.ts';
import { EntityLexicon } from './question-shape.ts';

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

describe('gate features on a real retrieval', () => {
  it('scores the product of unnormalised cosine and BM25 of the strongest passage', async () => {
    const r = await HybridRetriever.build(chunks, new HashingEmbedder());
    const q = 'What is the connection pool ceiling for events-bus?';
    const retrieval = await r.search(q);
    const f = gateFeatures(q, retrieval, { lexicon: new EntityLexicon(chunks), idf: (t) => r.idf(t), knows: (t) => r.knows(t) });
    const products = retrieval.results.map((x) => Math.max(0, x.dense!) * x.bm25);
    expect(f.score).toBeCloseTo(Math.max(...products), 6);
    expect(f.entities).toEqual(['events-bus']);
    expect(f.demanded).toBe('quantity');
    const pool = f.passages.find((p) => p.result.chunk.id === 'db#pool')!;
    expect(pool.missingEntities).toEqual(['events-bus']);
    expect(pool.statesDemandedValue).toBe(true);
    const bus = f.passages.find((p) => p.result.chunk.id === 'bus#lag')!;
    expect(bus.missingEntities).toEqual([]);
    // Its number stands with orders-db, not with events-bus (S-021); the bus passage states no ceiling.
    expect(pool.concentration).toBe(0);
    expect(bus.concentration).toBe(0);
    const own = 'What is the connection pool ceiling for orders-db?';
    const ownPool = gateFeatures(own, await r.search(own), { lexicon: new EntityLexicon(chunks), idf: (t) => r.idf(t), knows: (t) => r.knows(t) }).passages.find((p) => p.result.chunk.id === 'db#pool')!;
    expect(ownPool.concentration).toBeGreaterThan(0.5);
  });

  it('reads a value as standing with the thing its list item or paragraph is about, not with every name in the passage', async () => {
    const listing = [chunk('arch#services', 'Services', [
      '- `playback-api` is the entry point. It runs 12 replicas per region. It calls `catalog-api` with a timeout of 1.5 seconds.',
      '- `catalog-api` serves title metadata and keeps an in-process cache.',
    ].join('\n')), chunk('arch#topics', 'Event bus', 'Producers publish to the bus.\n\n## Topics carried by events-bus\n\nProducers publish `order.placed` from `checkout-api`. Every topic has 48 partitions.')];
    const r = await HybridRetriever.build(listing, new HashingEmbedder());
    const conc = async (q: string, id: string) =>
      gateFeatures(q, await r.search(q), { lexicon: new EntityLexicon(listing), idf: (t) => r.idf(t), knows: (t) => r.knows(t) }).passages.find((p) => p.result.chunk.id === id)!.concentration;
    expect(await conc('How many replicas does playback-api run per region?', 'arch#services')).toBeGreaterThan(0.5);
    expect(await conc('How many replicas does catalog-api run per region?', 'arch#services')).toBe(0);
    // a sub-heading merged into the passage places its entity for the sentences under it
    expect(await conc('How many partitions does events-bus have per topic?', 'arch#topics')).toBeGreaterThan(0.5);
  });

  it('lets an alert identify its topic by rarity, never a service of the estate', async () => {
    const alerting = [...chunks, chunk('bus#alert', 'Paging', 'EventsBusLagHigh pages the Data Platform on-call for events-bus.')];
    const r = await HybridRetriever.build(alerting, new HashingEmbedder());
    const rarity = async (q: string, lexicon: EntityLexicon) => {
      const f = gateFeatures(q, await r.search(q), { lexicon, idf: (t) => r.idf(t), knows: (t) => r.knows(t) });
      return f.passages.find((p) => p.result.chunk.id === 'bus#alert')!.rarestEntityPassages;
    };
    const estate = new EntityLexicon(alerting, ['events-bus', 'orders-db']);
    expect(await rarity('How do I respond to EventsBusLagHigh?', estate)).toBe(1);
    expect(await rarity('How do I fail over events-bus?', estate)).toBe(Infinity);
  });

  it('has no score when degraded', async () => {
    const r = await HybridRetriever.build(chunks, new BrokenEmbedder());
    const retrieval = await r.search('disk alert threshold');
    expect(gateFeatures('disk alert threshold', retrieval, { lexicon: new EntityLexicon(chunks), idf: (t) => r.idf(t), knows: (t) => r.knows(t) }).score).toBeNull();
  });
});
