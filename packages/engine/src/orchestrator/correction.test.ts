import { beforeAll, describe, expect, it } from 'vitest';
import { InMemoryCacheStore } from '../models/in-memory-cache-store.ts';
import { perMillionTokens } from '../models/pricing.ts';
import { ProviderHealth } from '../models/provider-health.ts';
import { SemanticCache } from '../models/semantic-cache.ts';
import type { KnowledgeBase } from '../knowledge-base.ts';
import { cosine } from '../retrieval/embedder.ts';
import { HashingEmbedder } from '../retrieval/hashing-embedder.ts';
import type { CacheRunEvent } from './events.ts';
import { bareModelFactory, stackModelFactory } from './model-factory.ts';
import { createOrchestrator } from './orchestrator.ts';
import { corpusKnowledgeBase } from './testing/corpus-fixture.ts';
import { type DraftCall, draftReply, RecordingModel } from './testing/recording-model.ts';

/**
 * The citation loop: verify → hypothesise WITH FEEDBACK (D-005), the retry
 * marked as a correction the cache never serves (D-006), bounded attempts.
 */
const QUESTION = 'What is the connection pool ceiling for orders-db?';
const CEILING = 'architecture-order-path#orders-db-connection-pool-ceiling';

/** A wrong number about the right subject, cited to the real passage: the failure a citation alone does not catch. */
const wrongDraft = draftReply([{ text: 'The orders-db connection pool ceiling is 200 connections.', citations: [CEILING] }]);
const rightDraft = draftReply([{ text: 'The orders-db connection pool ceiling is 100 connections.', citations: [CEILING] }]);

let kb: KnowledgeBase;
beforeAll(async () => {
  kb = await corpusKnowledgeBase();
});

function passagesOf(call: DraftCall): string[] {
  return call.draft?.passages.map((p) => p.id) ?? [];
}

describe('verify → hypothesise with feedback (D-005)', () => {
  it('fails the wrong number once, sends feedback naming the failing claim, and emits the corrected draft', async () => {
    // Like a real model, it corrects itself only when told what was wrong: the same prompt gets the same wrong answer.
    const model = new RecordingModel((call) => (call.draft!.feedback.some((f) => f.includes('states 200')) ? rightDraft : wrongDraft));
    const r = await createOrchestrator({ kb, models: bareModelFactory(model) }).run({ question: QUESTION });

    expect(model.calls).toHaveLength(2);
    expect(passagesOf(model.calls[0]!)[0]).toBe(CEILING); // the carrier first
    expect(model.calls[0]!.draft!.feedback).toEqual([]);
    const feedback = model.calls[1]!.draft!.feedback;
    expect(feedback).toHaveLength(1);
    expect(feedback[0]).toContain('Claim 1 "The orders-db connection pool ceiling is 200 connections."');
    expect(feedback[0]).toMatch(/states 200, which .* does not state/);
    // Marked as a correction for the cache (D-006); the first call is not. Both hold their cache write for verify (S-012).
    expect(model.calls[0]!.options.providerOptions?.['sandscope']).toEqual({ deferCacheWrite: true });
    expect(model.calls[1]!.options.providerOptions?.['sandscope']).toEqual({ correction: true, deferCacheWrite: true });

    expect(r.attempts.map((a) => [a.attempt, a.correction, a.verified])).toEqual([
      [1, false, false],
      [2, true, true],
    ]);
    expect(r.terminal).toBe('emit');
    expect(r.claims).toEqual([{ text: 'The orders-db connection pool ceiling is 100 connections.', citations: [CEILING] }]);
    const verifyEnds = r.trace.filter((e) => e.type === 'node' && e.node === 'verify' && e.kind === 'end');
    expect(verifyEnds.map((e) => (e.type === 'node' ? e.data['ok'] : null))).toEqual([false, true]);
  });

  it('escalates after 3 attempts when every draft is wrong', async () => {
    const model = new RecordingModel(() => wrongDraft);
    const r = await createOrchestrator({ kb, models: bareModelFactory(model) }).run({ question: QUESTION });
    expect(model.calls).toHaveLength(3);
    expect(r.terminal).toBe('escalate');
    expect(r.claims).toEqual([]);
    expect(r.action).toBeNull();
    expect(r.attempts.map((a) => a.correction)).toEqual([false, true, true]);
    expect(r.reasons[r.reasons.length - 1]).toMatch(/failed citation verification 3 times/);
  });

  it('escalates a draft that cites a passage this run never retrieved, and one with an uncited claim', async () => {
    const model = new RecordingModel(() =>
      draftReply([
        { text: 'orders-db accepts at most 100 connections.', citations: ['policy-data-handling#exporting-data-out-of-production'] },
        { text: 'orders-db accepts at most 100 connections.', citations: [] },
      ]),
    );
    const r = await createOrchestrator({ kb, models: bareModelFactory(model) }).run({ question: QUESTION });
    expect(r.terminal).toBe('escalate');
    expect(r.attempts[0]!.failures.map((f) => f.reasons[0])).toEqual([
      expect.stringMatching(/not one of the passages given in this run/),
      'it cites no passage',
    ]);
  });
});

describe('D-006 wired: the real cache + guard + router stack never serves a correction', () => {
  it('calls the model twice and records a cache bypass, though the correction is near-identical to the first prompt', async () => {
    const scripted = new RecordingModel((call) => (call.index === 0 ? wrongDraft : rightDraft), 'scripted');
    const embedder = new HashingEmbedder();
    const cache = new SemanticCache({ store: new InMemoryCacheStore(), embedder });
    const models = stackModelFactory({
      candidates: [{ name: 'scripted', model: scripted, pricing: perMillionTokens(1, 2) }],
      health: new ProviderHealth(),
      cache,
      budgetUsd: 0.02,
    });
    const r = await createOrchestrator({ kb, models }).run({ question: QUESTION });

    // The model answered the correction itself: the cache did not serve it the draft that had just failed.
    expect(scripted.calls).toHaveLength(2);
    // The two prompts are the same question over the same passages: a semantic cache WOULD match them.
    const [first, second] = scripted.calls.map((c) => c.draft!);
    expect(second!.question).toBe(first!.question);
    expect(second!.passages).toEqual(first!.passages);
    const [a, b] = await embedder.embed([first!.question, second!.question]);
    expect(cosine(a!, b!)).toBeGreaterThanOrEqual(embedder.cacheSimilarityThreshold);

    const cacheEvents = r.trace.filter((e): e is CacheRunEvent => e.type === 'cache').map((e) => e.event.kind);
    // The failed first draft is never stored (S-012); the verified correction is.
    expect(cacheEvents).toEqual(['miss', 'bypass', 'stored']);
    expect(r.attempts.map((a) => [a.provider, a.cache])).toEqual([
      ['scripted', 'miss'],
      ['scripted', 'bypass'],
    ]);
    expect(r.terminal).toBe('emit');
    // Money went through the guard: two paid calls, settled at the scripted price.
    expect(r.spend.spentUsd).toBeGreaterThan(0);
    expect(r.spend.spentUsd).toBeCloseTo(r.attempts[0]!.costUsd + r.attempts[1]!.costUsd, 9);
    expect(r.providers.map((p) => [p.provider, p.kind])).toEqual([
      ['scripted', 'served'],
      ['scripted', 'served'],
    ]);
  });
});

describe('S-012: only a verified draft earns a cache entry', () => {
  const stack = (scripted: RecordingModel) =>
    stackModelFactory({
      candidates: [{ name: 'scripted', model: scripted, pricing: perMillionTokens(1, 2) }],
      health: new ProviderHealth(),
      cache: new SemanticCache({ store: new InMemoryCacheStore(), embedder: new HashingEmbedder() }),
      budgetUsd: 0.02,
    });

  it('a draft that failed verification is never served to the next run of the same question', async () => {
    // Wrong on every first attempt, right only when corrected.
    const scripted = new RecordingModel((call) => (call.draft!.feedback.length ? rightDraft : wrongDraft), 'scripted');
    const orchestrator = createOrchestrator({ kb, models: stack(scripted) });
    await orchestrator.run({ question: QUESTION });
    const second = await orchestrator.run({ question: QUESTION });
    // What the cache can serve is the verified correction (a semantic match on the same question and
    // passages) — never the wrong first draft, so the second run emits at its first attempt.
    expect(second.attempts).toHaveLength(1);
    expect(second.attempts[0]!.cache).toMatch(/^hit:/);
    expect(second.claims).toEqual([{ text: 'The orders-db connection pool ceiling is 100 connections.', citations: [CEILING] }]);
    expect(second.terminal).toBe('emit');
    expect(scripted.calls).toHaveLength(2);
  });

  it('a verified draft is served to the next run from the cache', async () => {
    const scripted = new RecordingModel(() => rightDraft, 'scripted');
    const orchestrator = createOrchestrator({ kb, models: stack(scripted) });
    await orchestrator.run({ question: QUESTION });
    const second = await orchestrator.run({ question: QUESTION });
    expect(second.attempts[0]!.cache).toBe('hit:exact');
    expect(scripted.calls).toHaveLength(1);
    expect(second.terminal).toBe('emit');
  });
});
