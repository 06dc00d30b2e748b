import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KnowledgeBase, shippedAnswerabilityModel } from '../knowledge-base.ts';
import { InMemoryCacheStore } from '../models/in-memory-cache-store.ts';
import { perMillionTokens } from '../models/pricing.ts';
import { ProviderHealth } from '../models/provider-health.ts';
import { candidatesFromConfigs } from '../models/providers.ts';
import { SemanticCache } from '../models/semantic-cache.ts';
import { InProcessSpendLedger, type SpendLedger } from '../models/spend-ledger.ts';
import { startStubOpenAIServer, type StubOpenAIServer } from '../models/testing/stub-openai-server.ts';
import { stackModelFactory, type StackModelFactoryOptions } from '../orchestrator/model-factory.ts';
import { createOrchestrator } from '../orchestrator/orchestrator.ts';
import { corpusKnowledgeBase } from '../orchestrator/testing/corpus-fixture.ts';
import { HashingEmbedder } from '../retrieval/hashing-embedder.ts';

/**
 * S-250: when the reader's call could not be made, the answer was given unread and the reason named the error's
 * class ("No model read this answer (BudgetExceededError); answered as offline."). Each refusal of the spend guard
 * and the shared ledger is said in words, with what to do. The stub on 127.0.0.1 is configured as groq; with a
 * reader, an answer of the sufficient band is read first (S-096), so the reading is the run's first model call.
 */

const QUESTION = 'What is the connection pool ceiling for orders-db?';

let kb: KnowledgeBase;
let stub: StubOpenAIServer;
beforeAll(async () => {
  const corpus = await corpusKnowledgeBase();
  // Adjudicated bands that answer everything: the question reaches the sufficient band, and the reader reads it.
  kb = await KnowledgeBase.build({
    documents: corpus.documents,
    estate: corpus.estate,
    model: { ...shippedAnswerabilityModel(), adjudicatedBands: { insufficientBelow: 0, sufficientAbove: 0 } },
  });
  stub = await startStubOpenAIServer();
});
afterAll(() => stub.close());

async function unreadNote(options: Partial<Pick<StackModelFactoryOptions, 'ledger' | 'runTokenBudget'>>) {
  const candidates = candidatesFromConfigs(
    [{ kind: 'http', name: 'groq', baseURL: stub.baseURL, model: 'groq-stub', apiKey: 'stub-key', pricing: perMillionTokens(1, 1) }],
    { fetch, timeoutMs: 5_000 },
  );
  const models = stackModelFactory({
    candidates,
    health: new ProviderHealth(),
    cache: new SemanticCache({ store: new InMemoryCacheStore(), embedder: new HashingEmbedder() }),
    budgetUsd: 0.02,
    ...options,
  });
  const before = stub.requests.length;
  const r = await createOrchestrator({ kb, models, adjudication: 'model' }).run({ question: QUESTION });
  expect(stub.requests.length).toBe(before);
  expect(r.reasons.join(' ')).not.toMatch(/[A-Z][a-z]+Error\b/);
  return r.reasons.find((line) => line.startsWith('No model read this answer'));
}

describe("why no model read an answer, by the error's code (S-250)", () => {
  it('the daily spend ceiling', async () => {
    const note = await unreadNote({ ledger: new InProcessSpendLedger({ ceilingUsd: 0.001 }) });
    expect(note).toBe(
      'No model read this answer: the daily spend ceiling is reached (DAILY_SPEND_CEILING_USD $0.001, shared by every replica); try again after 00:00 UTC, or raise DAILY_SPEND_CEILING_USD. Given unread, as it would be without a reader.',
    );
  });

  it('the shared spend ledger out of reach', async () => {
    const unreachable: SpendLedger = {
      ceilingUsd: 1,
      description: 'unreachable',
      reserve: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:6379')),
      settle: async () => {},
      usage: () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:6379')),
    };
    const note = await unreadNote({ ledger: unreachable });
    expect(note).toBe(
      'No model read this answer: the shared spend ledger cannot be reached, so no call was made; retry, and check the Redis (REDIS_URL) or database (DATABASE_URL) the replicas share. Given unread, as it would be without a reader.',
    );
  });

  it("the run's token allowance", async () => {
    const note = await unreadNote({ runTokenBudget: 1_000 });
    expect(note).toMatch(
      /^No model read this answer: the run's token allowance \(RUN_TOKEN_BUDGET 1000 tokens\) is too small for the reading \(a \d,\d{3}-token prompt\); raise RUN_TOKEN_BUDGET\. /,
    );
  });
});
