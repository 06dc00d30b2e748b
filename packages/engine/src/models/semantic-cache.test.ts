import type { LanguageModelV3CallOptions, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { convertArrayToReadableStream, MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { EmbedderUnavailableError, type Embedder } from '../retrieval/embedder.ts';
import { HashingEmbedder } from '../retrieval/hashing-embedder.ts';
import type { Chunk } from '../types.ts';
import { withSandscopeOptions } from './call-options.ts';
import type { CacheEntry, CacheStore } from './cache-store.ts';
import { InMemoryCacheStore } from './in-memory-cache-store.ts';
import { tokenUsage } from './pricing.ts';
import { buildDraftPrompt } from './prompt.ts';
import { CachedModel, SemanticCache, type CacheEvent } from './semantic-cache.ts';
import { ScriptedModel } from './testing/scripted-model.ts';
import { drainStream } from './text-stream.ts';

/** Bag of hashed words → unit vector. Tiny and deterministic; stands in for the real embedder. */
class BagOfWordsEmbedder implements Embedder {
  readonly dimensions = 512;
  readonly id: string;
  unavailable = false;
  constructor(
    readonly cacheSimilarityThreshold: number,
    id = 'test-bow-512',
  ) {
    this.id = id;
  }
  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    if (this.unavailable) throw new EmbedderUnavailableError('test embedder switched off');
    return texts.map((text) => {
      const v = new Float32Array(this.dimensions);
      for (const word of text
        .toLowerCase()
        .split(/[^a-z0-9]+/)
        .filter(Boolean)) {
        let h = 2166136261;
        for (const ch of word) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
        v[(h >>> 0) % this.dimensions]! += 1;
      }
      const norm = Math.hypot(...v) || 1;
      return v.map((x) => x / norm);
    });
  }
}

const pool: Chunk = { id: 'runbook-db#pool', doc: 'runbook-db.md', docTitle: 'DB runbook', heading: 'Pool', text: 'The orders-db pool ceiling is 100.' };
const change: Chunk = {
  id: 'policy-change#approval',
  doc: 'policy-change.md',
  docTitle: 'Change policy',
  heading: 'Approval',
  text: 'The incident commander approves emergency changes.',
};

const Q = 'What is the connection pool ceiling for orders-db?';
const Q_REPHRASED = "what's the connection pool ceiling for orders-db";
const Q_OTHER = 'Who approves an emergency change?';

function draftCall(question: string, passages: Chunk[] = [pool, change], feedback?: string[]): LanguageModelV3CallOptions {
  return { prompt: buildDraftPrompt({ system: 'triage', question, passages, ...(feedback ? { feedback } : {}) }) };
}

function setup(options: { threshold?: number; corpusVersion?: string; workload?: string; store?: CacheStore; embedder?: BagOfWordsEmbedder } = {}) {
  const embedder = options.embedder ?? new BagOfWordsEmbedder(options.threshold ?? 0.8);
  const store = options.store ?? new InMemoryCacheStore();
  const cache = new SemanticCache({ store, embedder, clock: () => 0 });
  const inner = new ScriptedModel('inner', [
    { kind: 'text', text: 'answer-1' },
    { kind: 'text', text: 'answer-2' },
    { kind: 'text', text: 'answer-3' },
  ]);
  const events: CacheEvent[] = [];
  const model = new CachedModel(inner, cache, {
    corpusVersion: options.corpusVersion ?? 'corpus-v1',
    workload: options.workload ?? 'triage',
    onEvent: (e) => events.push(e),
  });
  return { model, inner, events, cache, store, embedder };
}

/** The namespace a draft of `question` is kept under in setup()'s scope. */
const namespaceOf = (question: string) =>
  new SemanticCache({ store: new InMemoryCacheStore(), embedder: new BagOfWordsEmbedder(0.8) }).describe(
    { corpusVersion: 'corpus-v1', workload: 'triage' },
    draftCall(question),
  ).namespace;

function textOf(result: Awaited<ReturnType<CachedModel['doGenerate']>>): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
}

describe('CachedModel', () => {
  it('exact hit: an identical call is answered from the cache without calling the model', async () => {
    const { model, inner, events } = setup();
    expect(textOf(await model.doGenerate(draftCall(Q)))).toBe('answer-1');
    const second = await model.doGenerate(draftCall(Q));
    expect(textOf(second)).toBe('answer-1');
    expect(inner.calls).toHaveLength(1);
    expect(second.providerMetadata?.['sandscope']).toMatchObject({ servedBy: 'cache', cache: 'exact' });
    expect(second.usage.inputTokens.total).toBe(0);
    expect(events.map((e) => e.kind)).toEqual(['miss', 'stored', 'hit']);
    expect(events[2]).toMatchObject({ match: 'exact', similarity: 1 });
  });

  it('exact match ignores whitespace layout', async () => {
    const { model, inner } = setup();
    await model.doGenerate(draftCall(Q));
    await model.doGenerate(draftCall(`  ${Q.replaceAll(' ', '   ')} `));
    expect(inner.calls).toHaveLength(1);
  });

  it("semantic hit: a rephrased question at or above the embedder's threshold", async () => {
    const { model, inner, events, embedder } = setup({ threshold: 0.8 });
    const [a, b] = await embedder.embed([Q, Q_REPHRASED]);
    const similarity = a!.reduce((s, x, i) => s + x * b![i]!, 0);
    expect(similarity).toBeGreaterThanOrEqual(0.8);
    expect(similarity).toBeLessThan(1);
    await model.doGenerate(draftCall(Q));
    const hit = await model.doGenerate(draftCall(Q_REPHRASED));
    expect(textOf(hit)).toBe('answer-1');
    expect(inner.calls).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ kind: 'hit', match: 'semantic' });
    expect((events.at(-1) as { similarity: number }).similarity).toBeCloseTo(similarity, 5);
  });

  it('a semantic match whose answer is gone by the time it is read (a mark, an expiry) is a miss, not an empty answer', async () => {
    const store = new InMemoryCacheStore();
    const { model, inner } = setup({ threshold: 0.8, store });
    await model.doGenerate(draftCall(Q));
    const [candidate] = await store.scan(namespaceOf(Q));
    const vanishing: CacheStore = { get: async () => undefined, set: (e) => store.set(e), scan: (n) => store.scan(n), delete: (k) => store.delete(k) };
    const again = setup({ threshold: 0.8, store: vanishing });
    expect(candidate).toBeDefined();
    expect(textOf(await again.model.doGenerate(draftCall(Q_REPHRASED)))).toBe('answer-1');
    expect(again.inner.calls).toHaveLength(1);
    expect(again.events[0]).toMatchObject({ kind: 'miss' });
    expect(inner.calls).toHaveLength(1);
  });

  it('S-248: a question asking another thing of the same things, or the same thing of more, is a miss at any similarity', async () => {
    // The audit's pairs, under an embedder lenient enough to call each one the same question.
    const { model, inner, events, embedder } = setup({ threshold: 0.5 });
    const others = ['Should we raise the connection pool ceiling for orders-db?', 'What is the connection pool ceiling for orders-db replicas?'];
    for (const other of others) {
      const [a, b] = await embedder.embed([Q, other]);
      expect(a!.reduce((s, x, i) => s + x * b![i]!, 0)).toBeGreaterThanOrEqual(0.5);
    }
    await model.doGenerate(draftCall(Q));
    expect(textOf(await model.doGenerate(draftCall(others[0]!)))).toBe('answer-2');
    expect(textOf(await model.doGenerate(draftCall(others[1]!)))).toBe('answer-3');
    expect(inner.calls).toHaveLength(3);
    expect(events.filter((e) => e.kind === 'hit')).toEqual([]);
    // …while the same question reworded in its function words, inflection and order still hits.
    expect(textOf(await model.doGenerate(draftCall('for orders-db, what is the connection pool ceilings')))).toBe('answer-1');
    expect(inner.calls).toHaveLength(3);
  });

  it('miss below the threshold: a different question is asked of the model', async () => {
    const { model, inner, events } = setup({ threshold: 0.8 });
    await model.doGenerate(draftCall(Q));
    expect(textOf(await model.doGenerate(draftCall(Q_OTHER)))).toBe('answer-2');
    expect(inner.calls).toHaveLength(2);
    expect(events.filter((e) => e.kind === 'miss')).toHaveLength(2);
  });

  it("the threshold is the embedder's (seed ADR-0008): the same pair hits under a lenient embedder and misses under a strict one", async () => {
    const lenient = setup({ threshold: 0.8 });
    await lenient.model.doGenerate(draftCall(Q));
    await lenient.model.doGenerate(draftCall(Q_REPHRASED));
    expect(lenient.inner.calls).toHaveLength(1);

    const strict = setup({ threshold: 0.95 });
    await strict.model.doGenerate(draftCall(Q));
    await strict.model.doGenerate(draftCall(Q_REPHRASED));
    expect(strict.inner.calls).toHaveLength(2);
  });

  it('a different corpusVersion or workload misses, even for an identical prompt', async () => {
    const store = new InMemoryCacheStore();
    const embedder = new BagOfWordsEmbedder(0.5);
    const v1 = setup({ store, embedder, corpusVersion: 'corpus-v1', workload: 'triage' });
    await v1.model.doGenerate(draftCall(Q));
    const v2 = setup({ store, embedder, corpusVersion: 'corpus-v2', workload: 'triage' });
    await v2.model.doGenerate(draftCall(Q));
    expect(v2.inner.calls).toHaveLength(1);
    expect(v2.events[0]).toMatchObject({ kind: 'miss' });
    const change = setup({ store, embedder, corpusVersion: 'corpus-v1', workload: 'change' });
    await change.model.doGenerate(draftCall(Q));
    expect(change.inner.calls).toHaveLength(1);
    // …while the original namespace still hits.
    const again = setup({ store, embedder, corpusVersion: 'corpus-v1', workload: 'triage' });
    await again.model.doGenerate(draftCall(Q));
    expect(again.inner.calls).toHaveLength(0);
  });

  it('a correction call never reads the cache, even for an identical prompt (D-006) — but it may write', async () => {
    const { model, inner, events, store } = setup();
    await model.doGenerate(draftCall(Q));
    const correction = withSandscopeOptions(draftCall(Q), { correction: true });
    expect(textOf(await model.doGenerate(correction))).toBe('answer-2');
    expect(inner.calls).toHaveLength(2);
    expect(events.slice(2).map((e) => e.kind)).toEqual(['bypass', 'stored']);
    const scanned = await store.scan(namespaceOf(Q));
    expect(scanned).toHaveLength(1);
    expect((await store.get(scanned[0]!.key))?.text).toBe('answer-2');
  });

  it('a prompt carrying verifier feedback is a correction even without the flag (D-006 belt and braces)', async () => {
    const { model, inner, events } = setup({ threshold: 0.5 });
    await model.doGenerate(draftCall(Q));
    await model.doGenerate(draftCall(Q, [pool, change], ['Claim "x" cites nothing']));
    expect(inner.calls).toHaveLength(2);
    expect(events.find((e) => e.kind === 'bypass')).toMatchObject({ reason: 'correction' });
  });

  it('a semantic hit is only served when its evidence is in front of the caller', async () => {
    const { model, inner } = setup({ threshold: 0.5 });
    await model.doGenerate(draftCall(Q, [pool]));
    await model.doGenerate(draftCall(Q_REPHRASED, [change]));
    expect(inner.calls).toHaveLength(2);
    await model.doGenerate(draftCall(Q_REPHRASED, [change, pool]));
    expect(inner.calls).toHaveLength(2);
  });

  it('streams: a miss is recorded when the stream finishes, and a hit replays it as a stream', async () => {
    const { model, inner, events } = setup();
    const first = await drainStream((await model.doStream(draftCall(Q))).stream);
    expect(first.text).toBe('answer-1');
    const second = await drainStream((await model.doStream(draftCall(Q))).stream);
    expect(second.text).toBe('answer-1');
    expect(second.parts.at(-1)).toMatchObject({ type: 'finish', providerMetadata: { sandscope: { servedBy: 'cache', cache: 'exact' } } });
    expect(inner.calls).toHaveLength(1);
    expect(events.map((e) => e.kind)).toEqual(['miss', 'stored', 'hit']);
  });

  it('a correction stream bypasses the cache too', async () => {
    const { model, inner } = setup();
    await drainStream((await model.doStream(draftCall(Q))).stream);
    await drainStream((await model.doStream(withSandscopeOptions(draftCall(Q), { correction: true }))).stream);
    expect(inner.calls).toHaveLength(2);
  });

  it('a broken stream is not cached', async () => {
    const store = new InMemoryCacheStore();
    const cache = new SemanticCache({ store, embedder: new BagOfWordsEmbedder(0.8) });
    const inner = new ScriptedModel('inner', [{ kind: 'stream-then-error', deltas: ['half'], error: new Error('reset') }]);
    const model = new CachedModel(inner, cache, { corpusVersion: 'v', workload: 'triage' });
    const { error } = await drainStream((await model.doStream(draftCall(Q))).stream);
    expect(error).toBeInstanceOf(Error);
    expect(store.size).toBe(0);
  });

  it('a stream that reported an error part is not cached, even if it then claims to finish normally', async () => {
    const store = new InMemoryCacheStore();
    const cache = new SemanticCache({ store, embedder: new BagOfWordsEmbedder(0.8) });
    const inner = new MockLanguageModelV3({
      doStream: async () => ({
        stream: convertArrayToReadableStream<LanguageModelV3StreamPart>([
          { type: 'stream-start', warnings: [] },
          { type: 'text-start', id: 't' },
          { type: 'text-delta', id: 't', delta: '{"claims":[' },
          { type: 'error', error: new Error('upstream hiccup') },
          { type: 'text-end', id: 't' },
          { type: 'finish', usage: tokenUsage(1, 1), finishReason: { unified: 'stop', raw: 'stop' } },
        ]),
      }),
    });
    const model = new CachedModel(inner, cache, { corpusVersion: 'v', workload: 'triage' });
    await drainStream((await model.doStream(draftCall(Q))).stream);
    expect(store.size).toBe(0);
  });

  it('a question asking the opposite is not served the cached answer, though the shipped embedder cannot tell them apart', async () => {
    // The hashing embedder drops "not", "before", "after", "up", "down" as stopwords: each pair below embeds at 1.000,
    // retrieves the same passages, and was answered with the other question's cached draft.
    const pairs: [string, string][] = [
      ['What changed on orders-db before the outage?', 'What changed on orders-db after the outage?'],
      ['Which services are deployed on tuesdays?', "Which services aren't deployed on tuesdays?"],
      ['Is orders-db up?', 'Is orders-db down?'],
    ];
    for (const [first, opposite] of pairs) {
      const cache = new SemanticCache({ store: new InMemoryCacheStore(), embedder: new HashingEmbedder(), clock: () => 0 });
      const inner = new ScriptedModel('inner', [
        { kind: 'text', text: 'answer-1' },
        { kind: 'text', text: 'answer-2' },
      ]);
      const model = new CachedModel(inner, cache, { corpusVersion: 'corpus-v1', workload: 'triage' });
      expect(textOf(await model.doGenerate(draftCall(first)))).toBe('answer-1');
      expect(textOf(await model.doGenerate(draftCall(opposite))), `${first} | ${opposite}`).toBe('answer-2');
      // …while a rephrasing that asks the same thing still hits.
      expect(textOf(await model.doGenerate(draftCall(`  ${first.toLowerCase()}`)))).toBe('answer-1');
      expect(inner.calls).toHaveLength(2);
    }
  });

  it('works by exact match alone when the embedder is unavailable', async () => {
    const { model, inner, embedder } = setup({ threshold: 0.5 });
    embedder.unavailable = true;
    await model.doGenerate(draftCall(Q));
    await model.doGenerate(draftCall(Q));
    expect(inner.calls).toHaveLength(1);
    await model.doGenerate(draftCall(Q_REPHRASED));
    expect(inner.calls).toHaveLength(2);
  });

  it('never compares vectors from another embedding space', async () => {
    const store = new InMemoryCacheStore();
    const a = setup({ store, embedder: new BagOfWordsEmbedder(0.5, 'space-a') });
    await a.model.doGenerate(draftCall(Q));
    const b = setup({ store, embedder: new BagOfWordsEmbedder(0.5, 'space-b') });
    await b.model.doGenerate(draftCall(Q_REPHRASED));
    expect(b.inner.calls).toHaveLength(1);
  });

  it('a store that fails degrades to a miss; the call is still served', async () => {
    const broken: CacheStore = {
      get: () => Promise.reject(new Error('redis down')),
      set: () => Promise.reject(new Error('redis down')),
      scan: () => Promise.reject(new Error('redis down')),
      delete: () => Promise.reject(new Error('redis down')),
    };
    const { model, events } = setup({ store: broken });
    expect(textOf(await model.doGenerate(draftCall(Q)))).toBe('answer-1');
    expect(events.map((e) => e.kind)).toEqual(['miss', 'store_failed']);
  });
});

describe('InMemoryCacheStore', () => {
  it('evicts the oldest entry past its bound', async () => {
    const store = new InMemoryCacheStore(2);
    const entry = (key: string): CacheEntry => ({ key, namespace: 'n', embedderId: null, vector: null, evidenceIds: [], text: key, createdAt: 0 });
    await store.set(entry('a'));
    await store.set(entry('b'));
    await store.set(entry('c'));
    expect(await store.get('a')).toBeUndefined();
    expect((await store.scan('n')).map((e) => e.key)).toEqual(['b', 'c']);
  });
});
