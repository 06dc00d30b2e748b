import { describe, expect, it } from 'vitest';
import type { Embedder } from '../retrieval/embedder.ts';
import type { Chunk } from '../types.ts';
import { readResultMetadata, withSandscopeOptions } from './call-options.ts';
import { InMemoryCacheStore } from './in-memory-cache-store.ts';
import { composeRunModel } from './compose.ts';
import { OfflineExtractiveModel } from './offline-model.ts';
import { FREE, perMillionTokens } from './pricing.ts';
import { buildDraftPrompt, parseDraft } from './prompt.ts';
import { ProviderHealth } from './provider-health.ts';
import type { ProviderEvent, RouterCandidate } from './router.ts';
import { SemanticCache, type CacheEvent } from './semantic-cache.ts';
import { SpendGuard, type SpendEvent } from './spend-guard.ts';
import { ScriptedModel, serverError } from './testing/scripted-model.ts';

/** Every text maps to the same vector: only the namespace, evidence and bypass rules can keep entries apart. */
const constantEmbedder: Embedder = {
  id: 'constant',
  dimensions: 2,
  cacheSimilarityThreshold: 0.6,
  embed: async (texts) => texts.map(() => Float32Array.from([1, 0])),
};

const passages: Chunk[] = [
  { id: 'runbook-db#pool', doc: 'runbook-db.md', docTitle: 'DB runbook', heading: 'Pool', text: 'The orders-db pool ceiling is 100.' },
];
const call = { prompt: buildDraftPrompt({ system: 'triage', question: 'What is the pool ceiling for orders-db?', passages }) };

function stack(candidates: RouterCandidate[], failProviders?: Set<string>, cache?: SemanticCache) {
  const provider: ProviderEvent[] = [];
  const spend: SpendEvent[] = [];
  const cacheEvents: CacheEvent[] = [];
  const guard = new SpendGuard(0.02);
  const built = composeRunModel({
    candidates,
    health: new ProviderHealth(),
    ...(failProviders ? { failProviders } : {}),
    guard,
    cache: cache ?? new SemanticCache({ store: new InMemoryCacheStore(), embedder: constantEmbedder }),
    corpusVersion: 'corpus-v1',
    workload: 'triage',
    sinks: { provider: (e) => provider.push(e), spend: (e) => spend.push(e), cache: (e) => cacheEvents.push(e) },
  });
  return { ...built, guard, provider, spend, cacheEvents };
}

describe('composeRunModel: cache(guard(router))', () => {
  it('a cache hit neither reserves budget nor reaches a provider', async () => {
    const groq = new ScriptedModel('groq', [{ kind: 'text', text: '{"claims":[]}' }]);
    const s = stack([{ name: 'groq', model: groq, pricing: perMillionTokens(1, 1) }]);
    await s.model.doGenerate(call);
    const spendAfterFirst = s.spend.length;
    const providerAfterFirst = s.provider.length;
    const spentAfterFirst = s.guard.spent;
    await s.model.doGenerate(call);
    expect(groq.calls).toHaveLength(1);
    expect(s.spend).toHaveLength(spendAfterFirst);
    expect(s.provider).toHaveLength(providerAfterFirst);
    expect(s.guard.spent).toBe(spentAfterFirst);
    expect(s.cacheEvents.at(-1)).toMatchObject({ kind: 'hit', match: 'exact' });
  });

  it('a correction goes past the cache, through the guard, to the router (D-006)', async () => {
    const groq = new ScriptedModel('groq', [
      { kind: 'text', text: 'first' },
      { kind: 'text', text: 'corrected' },
    ]);
    const s = stack([{ name: 'groq', model: groq, pricing: perMillionTokens(1, 1) }]);
    await s.model.doGenerate(call);
    const result = await s.model.doGenerate(withSandscopeOptions(call, { correction: true }));
    expect(result.content).toEqual([{ type: 'text', text: 'corrected' }]);
    expect(s.spend.filter((e) => e.kind === 'reserved')).toHaveLength(2);
    expect(s.provider.filter((e) => e.kind === 'served')).toHaveLength(2);
    expect(groq.calls[1]!.providerOptions ?? {}).not.toHaveProperty('sandscope');
  });

  it('with every HTTP provider failing or ticked off, the offline model serves the run', async () => {
    const s = stack(
      [
        { name: 'groq', model: new ScriptedModel('groq', [{ kind: 'error', error: serverError(500) }]), pricing: perMillionTokens(0.05, 0.08) },
        { name: 'gemini', model: new ScriptedModel('gemini', [{ kind: 'text', text: 'never' }]), pricing: perMillionTokens(0.3, 2.5) },
        { name: 'offline', model: new OfflineExtractiveModel(), pricing: FREE },
      ],
      new Set(['gemini']),
    );
    const result = await s.model.doGenerate(call);
    const claims = parseDraft(result.content[0]?.type === 'text' ? result.content[0].text : '');
    expect(claims?.[0]?.citations).toEqual(['runbook-db#pool']);
    expect(s.router.lastServedBy).toBe('offline');
    expect(s.provider.map((e) => [e.provider, e.kind])).toEqual([
      ['groq', 'failed'],
      ['gemini', 'injected_failure'],
      ['offline', 'served'],
    ]);
    // Priced against groq, the dearest that could still serve (gemini was ticked off); settled at offline's price: zero.
    expect(s.spend[0]).toMatchObject({ kind: 'reserved', pricedAgainst: 'groq' });
    expect(s.spend[1]).toMatchObject({ kind: 'settled', provider: 'offline', actualUsd: 0 });
  });

  it("a run with providers ticked off leaves no answer in the shared cache for another visitor's run (T-6)", async () => {
    const shared = new SemanticCache({ store: new InMemoryCacheStore(), embedder: constantEmbedder });
    const candidates = (groq: ScriptedModel): RouterCandidate[] => [
      { name: 'groq', model: groq, pricing: perMillionTokens(0.05, 0.08) },
      { name: 'offline', model: new OfflineExtractiveModel(), pricing: FREE },
    ];
    const drafted = withSandscopeOptions(call, { deferCacheWrite: true });
    // Visitor A ticks groq off: the offline fallback drafts, and the draft passes verify, which commits its held write.
    const a = stack(candidates(new ScriptedModel('groq', [{ kind: 'text', text: 'never' }])), new Set(['groq']), shared);
    const first = await a.model.doGenerate(drafted);
    expect(a.router.lastServedBy).toBe('offline');
    const token = readResultMetadata(first.providerMetadata).cacheWriteToken;
    if (token) await a.model.commit(token);
    // Visitor B ticks nothing off: groq is healthy and answers B's run, not A's degraded draft.
    const groq = new ScriptedModel('groq', [{ kind: 'text', text: '{"claims":[]}' }]);
    const b = stack(candidates(groq), undefined, shared);
    const second = await b.model.doGenerate(drafted);
    expect(readResultMetadata(second.providerMetadata).servedBy).toBe('groq');
    expect(groq.calls).toHaveLength(1);
  });

  it('a run with a provider ticked off meets the router, not an answer the cache holds (T-6)', async () => {
    const shared = new SemanticCache({ store: new InMemoryCacheStore(), embedder: constantEmbedder });
    const candidates = (groq: ScriptedModel): RouterCandidate[] => [
      { name: 'groq', model: groq, pricing: perMillionTokens(0.05, 0.08) },
      { name: 'offline', model: new OfflineExtractiveModel(), pricing: FREE },
    ];
    // Another visitor's healthy run leaves its answer in the cache.
    const warm = stack(candidates(new ScriptedModel('groq', [{ kind: 'text', text: '{"claims":[]}' }])), undefined, shared);
    await warm.model.doGenerate(call);
    const cached = stack(candidates(new ScriptedModel('groq', [])), undefined, shared);
    expect(readResultMetadata((await cached.model.doGenerate(call)).providerMetadata).servedBy).toBe('cache');
    // This visitor breaks groq: the router routes around it, where the cache served the answer and broke nothing.
    const broken = stack(candidates(new ScriptedModel('groq', [{ kind: 'text', text: 'never' }])), new Set(['groq']), shared);
    const result = await broken.model.doGenerate(call);
    expect(readResultMetadata(result.providerMetadata).servedBy).not.toBe('cache');
    expect(broken.router.lastServedBy).toBe('offline');
    expect(broken.cacheEvents).toContainEqual(expect.objectContaining({ kind: 'bypass', reason: 'injected_failure' }));
  });
});
