import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryCacheStore } from '../models/in-memory-cache-store.ts';
import { perMillionTokens } from '../models/pricing.ts';
import { ProviderHealth } from '../models/provider-health.ts';
import { candidatesFromConfigs } from '../models/providers.ts';
import { SemanticCache } from '../models/semantic-cache.ts';
import { startStubOpenAIServer, type StubOpenAIServer } from '../models/testing/stub-openai-server.ts';
import { HashingEmbedder } from '../retrieval/hashing-embedder.ts';
import type { KnowledgeBase } from '../knowledge-base.ts';
import { stackModelFactory } from './model-factory.ts';
import { createOrchestrator } from './orchestrator.ts';
import { corpusKnowledgeBase } from './testing/corpus-fixture.ts';

/**
 * Issue 12, defect 6 as it was reported: a provider reporting 20,000 prompt
 * tokens for every call put 19 of 20 runs at $0.20 against a $0.02 budget. Here
 * the provider is the stub server on 127.0.0.1 (configured as groq, offline
 * after it), and each of 20 runs goes through the real graph and the real
 * model stack, one process-wide factory as in the service.
 *
 * The first call cannot be known to cost more than the request could contain
 * until the provider says so. What the budget must do: stop that run (no
 * further call), and price that provider's next prompts by what it bills, so
 * no other run is sent to it at that price.
 */

const QUESTION = 'What is the connection pool ceiling for orders-db?';
const RUNS = 20;
const BUDGET = 0.02;

let kb: KnowledgeBase;
let stub: StubOpenAIServer;
beforeAll(async () => {
  kb = await corpusKnowledgeBase();
  stub = await startStubOpenAIServer({ fallback: { kind: 'json', text: '{"claims":[]}', usage: { promptTokens: 20_000, completionTokens: 20 } } });
});
afterAll(() => stub.close());

describe('issue 12, defect 6: twenty runs against a provider billing 20,000 prompt tokens a call', () => {
  it('at most one run ends over budget, and it makes no call after the one that took it over', async () => {
    const candidates = candidatesFromConfigs(
      [
        { kind: 'http', name: 'groq', baseURL: stub.baseURL, model: 'groq-stub', apiKey: 'stub-key', pricing: perMillionTokens(10, 10) },
        { kind: 'offline', name: 'offline', model: 'extractive-v1', pricing: perMillionTokens(0, 0) },
      ],
      { fetch, timeoutMs: 5_000 },
    );
    const models = stackModelFactory({
      candidates,
      health: new ProviderHealth(),
      cache: new SemanticCache({ store: new InMemoryCacheStore(), embedder: new HashingEmbedder() }),
      budgetUsd: BUDGET,
    });
    const orchestrator = createOrchestrator({ kb, models });

    const spends: number[] = [];
    const requestsPerRun: number[] = [];
    const refusals: string[] = [];
    const groqEvents: string[] = [];
    for (let i = 0; i < RUNS; i += 1) {
      const before = stub.requests.length;
      const r = await orchestrator.run({ question: QUESTION });
      spends.push(r.spend.spentUsd);
      requestsPerRun.push(stub.requests.length - before);
      for (const a of r.attempts) if (a.error) refusals.push(a.error.message);
      if (i > 0) for (const p of r.providers) if (p.provider === 'groq') groqEvents.push(p.kind);
    }
    const over = spends.filter((usd) => usd > BUDGET).length;
    console.log(
      `defect 6 (20 runs, 20,000 prompt tokens a call): ${over} of ${RUNS} runs over the $${BUDGET} budget; ` +
        `spent per run ${JSON.stringify(spends.map((s) => Number(s.toFixed(4))))}; requests per run ${JSON.stringify(requestsPerRun)}`,
    );
    expect(over).toBeLessThanOrEqual(1);
    // The run that went over stopped: exactly one request, and its next attempt was refused saying why.
    expect(requestsPerRun[0]).toBe(1);
    expect(refusals[0]).toMatch(/over its \$0\.020000 ceiling/);
    // No other run was sent to groq: it is priced at what it bills, more than a run can afford. S-074: it is left out
    // of those runs (the router holds them to what the reservation covers), not the reason to refuse them — the
    // offline model serves them, at no cost.
    expect(requestsPerRun.slice(1).every((n) => n === 0)).toBe(true);
    expect(spends.slice(1).every((usd) => usd === 0)).toBe(true);
    expect(refusals.slice(1).filter((m) => /budget|ceiling|allowance/i.test(m))).toEqual([]);
    expect(groqEvents.length).toBeGreaterThan(0);
    expect(new Set(groqEvents)).toEqual(new Set(['outside_reservation']));
  });
});
