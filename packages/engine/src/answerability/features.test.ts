import { describe, expect, it } from 'vitest';
import { type Embedder, EmbedderUnavailableError } from '../retrieval/embedder.ts';
import { HashingEmbedder } from '../retrieval/hashing-embedder.ts';
import { HybridRetriever } from '../retrieval/hybrid-retriever.ts';
import { EntityLexicon } from '../retrieval/question-shape.ts';
import { NO_THESAURUS, type Thesaurus, wordNetThesaurus } from '../retrieval/thesaurus.ts';
import { wordNetFixture } from '../retrieval/testing/wordnet-fixture.ts';
import { decodeWordVectors, encodeWordVectors, NO_WORD_VECTORS, type WordVectors } from '../retrieval/word-vectors.ts';
import type { Chunk } from '../types.ts';
import { answerabilityFeatures, type CorpusKnowledge, FEATURE_NAMES, type FeatureName } from './features.ts';
import { documentIndex, nameVocabulary } from '../knowledge-base.ts';

const chunk = (id: string, heading: string, text: string, path?: string[]): Chunk => ({
  id,
  doc: `${id.split('#')[0]}.md`,
  docTitle: 'Notes',
  heading,
  text,
  ...(path ? { path } : {}),
});
const chunks = [
  chunk('db#pool', 'orders-db connection pool ceiling', 'orders-db accepts at most 100 connections through its pooler.'),
  chunk('bus#lag', 'events-bus consumer lag', 'Consumer lag on events-bus pages when it exceeds 50000 messages.'),
  chunk('disk#alert', 'Disk pressure', 'The disk alert fires at 85 percent usage on any volume.'),
];

function knowledgeOf(
  cs: readonly Chunk[],
  r: HybridRetriever,
  services: string[] = [],
  thesaurus: Thesaurus = NO_THESAURUS,
  vectors: WordVectors = NO_WORD_VECTORS,
): CorpusKnowledge {
  const index = documentIndex(cs);
  const names = nameVocabulary(cs);
  return {
    lexicon: new EntityLexicon(cs, services),
    idf: (t) => r.idf(t),
    knows: (t) => r.knows(t),
    documentOf: (doc) => index.get(doc),
    isName: (t) => names.has(t),
    related: (t) => thesaurus.related(t),
    vectorOf: (w) => vectors.vectorOf(w),
  };
}
const feature = (vector: readonly number[], name: FeatureName) => vector[FEATURE_NAMES.indexOf(name)]!;

describe('answerability features on a real retrieval', () => {
  it('keeps the product of unnormalised cosine and BM25 and reads the entity and value checks', async () => {
    const r = await HybridRetriever.build(chunks, new HashingEmbedder());
    const q = 'What is the connection pool ceiling for events-bus?';
    const retrieval = await r.search(q);
    const f = answerabilityFeatures(q, retrieval, knowledgeOf(chunks, r));
    const products = retrieval.results.map((x) => Math.max(0, x.dense!) * x.bm25);
    expect(f.score).toBeCloseTo(Math.max(...products), 6);
    expect(f.entities).toEqual(['events-bus']);
    expect(f.demanded).toBe('quantity');
    const pool = f.passages.find((p) => p.result.chunk.id === 'db#pool')!;
    expect(pool.missingEntities).toEqual(['events-bus']);
    // Its number stands with orders-db, not with events-bus (S-021); the bus passage states no ceiling.
    expect(pool.valueMissing).toBe(true);
    const own = 'What is the connection pool ceiling for orders-db?';
    const ownPool = answerabilityFeatures(own, await r.search(own), knowledgeOf(chunks, r)).passages.find((p) => p.result.chunk.id === 'db#pool')!;
    expect(ownPool.valueMissing).toBe(false);
    expect(feature(ownPool.vector, 'valueCoverage')).toBeGreaterThan(0.5);
  });

  it('reads a value as standing with the thing its list item or paragraph is about, not with every name in the passage', async () => {
    const listing = [
      chunk(
        'arch#services',
        'Services',
        [
          '- `playback-api` is the entry point. It runs 12 replicas per region. It calls `catalog-api` with a timeout of 1.5 seconds.',
          '- `catalog-api` serves title metadata and keeps an in-process cache.',
        ].join('\n'),
      ),
      chunk(
        'arch#topics',
        'Event bus',
        'Producers publish to the bus.\n\n## Topics carried by events-bus\n\nProducers publish `order.placed` from `checkout-api`. Every topic has 48 partitions.',
      ),
    ];
    const r = await HybridRetriever.build(listing, new HashingEmbedder());
    const coverage = async (q: string, id: string) =>
      feature(answerabilityFeatures(q, await r.search(q), knowledgeOf(listing, r)).passages.find((p) => p.result.chunk.id === id)!.vector, 'valueCoverage');
    expect(await coverage('How many replicas does playback-api run per region?', 'arch#services')).toBeGreaterThan(0.5);
    expect(await coverage('How many replicas does catalog-api run per region?', 'arch#services')).toBe(0);
    // a sub-heading merged into the passage places its entity for the sentences under it
    expect(await coverage('How many partitions does events-bus have per topic?', 'arch#topics')).toBeGreaterThan(0.5);
  });

  it('gives a sentence’s values to the thing it opens on, not to a name it passes on the way (S-039)', async () => {
    const listing = [
      chunk(
        'arch#services',
        'Services',
        [
          '- `catalog-api` serves title metadata.',
          '- `catalog-pg` is the PostgreSQL cluster behind catalog-api, with one primary and one replica.',
          '- `playback-api` calls `catalog-api` with a timeout of 1.5 seconds.',
        ].join('\n'),
      ),
    ];
    const r = await HybridRetriever.build(listing, new HashingEmbedder());
    const coverage = async (q: string) =>
      feature(
        answerabilityFeatures(q, await r.search(q), knowledgeOf(listing, r)).passages.find((p) => p.result.chunk.id === 'arch#services')!.vector,
        'valueCoverage',
      );
    // The replica belongs to catalog-pg: the confident answer about the wrong service.
    expect(await coverage('How many replicas does catalog-api run?')).toBe(0);
    expect(await coverage('How many replicas does catalog-pg have?')).toBeGreaterThan(0);
    // A sentence opening on one thing asked about may state its relation to another.
    expect(await coverage('What is the timeout from playback-api to catalog-api?')).toBeGreaterThan(0);
  });

  it('lets an alert identify its topic, never a service of the estate', async () => {
    const alerting = [...chunks, chunk('bus#alert', 'Paging', 'EventsBusLagHigh pages the Data Platform on-call for events-bus.')];
    const r = await HybridRetriever.build(alerting, new HashingEmbedder());
    const identifying = async (q: string) =>
      feature(
        answerabilityFeatures(q, await r.search(q), knowledgeOf(alerting, r, ['events-bus', 'orders-db'])).passages.find(
          (p) => p.result.chunk.id === 'bus#alert',
        )!.vector,
        'identifyingEntity',
      );
    expect(await identifying('How do I respond to EventsBusLagHigh?')).toBe(1);
    expect(await identifying('How do I fail over events-bus?')).toBe(0);
  });

  it('has no score when degraded', async () => {
    class BrokenEmbedder implements Embedder {
      readonly id = 'broken';
      readonly dimensions = 768;
      readonly cacheSimilarityThreshold = 0.9;
      async embed(): Promise<Float32Array[]> {
        throw new EmbedderUnavailableError('down');
      }
    }
    const r = await HybridRetriever.build(chunks, new BrokenEmbedder());
    const retrieval = await r.search('disk alert threshold');
    expect(answerabilityFeatures('disk alert threshold', retrieval, knowledgeOf(chunks, r)).score).toBeNull();
  });

  it('weighs the question intent against the role of the section, and sees a placeholder section', async () => {
    const runbook = [
      chunk('rb#impact', 'Impact', 'Checkout requests to orders-db queue and customers see slow pages while the pool is saturated.', ['OrdersDbPoolSaturated']),
      chunk('rb#mitigation', 'Mitigation', 'To be added.', ['OrdersDbPoolSaturated']),
      chunk('rb#diagnosis', 'How to investigate', '1. Open the pool dashboard.\n2. Check which client holds connections.', ['OrdersDbPoolSaturated']),
    ];
    const r = await HybridRetriever.build(runbook, new HashingEmbedder());
    const of = async (q: string, id: string) =>
      answerabilityFeatures(q, await r.search(q), knowledgeOf(runbook, r)).passages.find((p) => p.result.chunk.id === id)!;
    const mitigate = await of('how do i mitigate OrdersDbPoolSaturated?', 'rb#mitigation');
    expect(mitigate.rolePlaceholder).toBe(true);
    expect(feature(mitigate.vector, 'roleAbsentFromDocument')).toBe(1);
    const investigate = await of('how do I investigate OrdersDbPoolSaturated', 'rb#diagnosis');
    expect(investigate.roleMatch).toBe(true);
    const impact = await of('how do I investigate OrdersDbPoolSaturated', 'rb#impact');
    expect(feature(impact.vector, 'otherRole')).toBe(1);
    expect(feature(impact.vector, 'roleElsewhereInDocument')).toBe(1);
  });

  it('reads a section that only points elsewhere as empty for a how-to, not for a look-up of where to look (S-043)', async () => {
    const pager = [
      chunk(
        'pd#override',
        'Creating a schedule override',
        'See the [PagerDuty documentation on schedule overrides](https://support.example.com/docs/edit-schedules#create-overrides) if you need to make a rota swap at the last minute.',
      ),
      chunk('pd#drill', 'PagerDuty drill', 'We test PagerDuty every Monday at 10am: a test incident pages the primary on-call, who acknowledges it.'),
    ];
    const r = await HybridRetriever.build(pager, new HashingEmbedder());
    const of = async (q: string) =>
      answerabilityFeatures(q, await r.search(q), knowledgeOf(pager, r)).passages.find((p) => p.result.chunk.id === 'pd#override')!;
    const howTo = await of('how do i create a schedule override in pagerduty for a rota swap, steps?');
    expect(howTo.placeholderAsked).toBe(true);
    expect(feature(howTo.vector, 'placeholder')).toBe(1);
    const where = await of('where are the docs for schedule overrides?');
    expect(where.placeholderAsked).toBe(false);
  });

  it('counts a word said in other words: the question is "exhausted", the runbook "depleted" (class 5)', async () => {
    const pool = [
      chunk('db#pool', 'orders-db pool', 'When the orders-db pool is depleted, raise the ceiling to 150.'),
      chunk('bus#lag', 'events-bus lag', 'Lag pages at 50000 messages.'),
    ];
    const r = await HybridRetriever.build(pool, new HashingEmbedder());
    const q = 'orders-db pool exhausted, what now';
    const at = async (t: Thesaurus) =>
      answerabilityFeatures(q, await r.search(q), knowledgeOf(pool, r, [], t)).passages.find((p) => p.result.chunk.id === 'db#pool')!.vector;
    const without = await at(NO_THESAURUS);
    const withWordNet = await at(wordNetThesaurus(wordNetFixture));
    expect(feature(withWordNet, 'synonymCoverage')).toBeGreaterThan(feature(without, 'synonymCoverage'));
    expect(feature(withWordNet, 'unknownAfterSynonyms')).toBeLessThan(feature(without, 'unknownAfterSynonyms'));
    expect(feature(withWordNet, 'topicCoverage')).toBe(feature(without, 'topicCoverage'));
  });

  it('counts a word said by a related one through word vectors: the question says "spike", the runbook "surge" (class 5, S-044)', async () => {
    const api = [
      chunk('api#surge', 'checkout-api surge', 'When checkout-api traffic comes in a surge, scale the workers out.'),
      chunk('api#disk', 'checkout-api disk', 'When checkout-api disk fills, rotate the logs.'),
    ];
    const r = await HybridRetriever.build(api, new HashingEmbedder());
    const q = 'checkout-api spike';
    // Three words in two dimensions: "spike" lies close to "surge" and far from "disk".
    const vectors = decodeWordVectors(
      encodeWordVectors({ package: 'test' }, [
        ['spike', [1, 0.2]],
        ['surge', [1, 0]],
        ['disk', [0, 1]],
      ]),
    );
    const at = async (v: WordVectors, id: string) =>
      answerabilityFeatures(q, await r.search(q), knowledgeOf(api, r, [], NO_THESAURUS, v)).passages.find((p) => p.result.chunk.id === id)!.vector;
    expect(feature(await at(vectors, 'api#surge'), 'softCoverage')).toBeGreaterThan(feature(await at(vectors, 'api#disk'), 'softCoverage'));
    expect(feature(await at(NO_WORD_VECTORS, 'api#surge'), 'softCoverage')).toBe(feature(await at(NO_WORD_VECTORS, 'api#disk'), 'softCoverage'));
  });
});
