import { KnowledgeBase } from '@sandscope/engine';
import { createHttpModel, InMemoryCacheStore, OfflineExtractiveModel, perMillionTokens, type RouterCandidate } from '@sandscope/engine/models';
import { startStubOpenAIServer, type StubOpenAIServer } from '@sandscope/engine/testing';
import { startStore, type Store } from '@sandscope/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from './config.ts';
import { loadCorpusSource } from './corpus-source.ts';
import { API_ERRORS } from './http/api-error.ts';
import { appDepsOf, createApp } from './http/app.ts';
import { parseSse } from './http/testing/sse-events.ts';
import { modelServicesFor, runAgent } from './run-agent.ts';
import { type AgentService, startAgentService } from './service/compose.ts';
import type { RunResultView } from './service/run-views.ts';
import { UserError } from './user-error.ts';

/**
 * S-268: `failProviders` (the console's "break a provider" boxes, POST /v1/runs, `ask --fail-provider`) naming a known
 * provider this deployment has not configured was accepted, failed nothing, and the run was served as any other —
 * from the shared cache when the question had been asked. A run asking for an outage it cannot have is refused, with
 * the providers it could fail. groq is on a stub OpenAI-compatible server (real HTTP); the cache is in memory.
 */

const TOKEN = 'test-token-0123456789abcdef0123456789';
const AUTH = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
const QUESTION = 'What is the connection pool ceiling for orders-db?';
const POOL_CHUNK = 'architecture-order-path#orders-db-connection-pool-ceiling';

let store: Store;
let groq: StubOpenAIServer;
let agent: AgentService;

function candidates(): RouterCandidate[] {
  const pricing = perMillionTokens(1, 1);
  return [
    {
      name: 'groq',
      model: createHttpModel(
        { kind: 'http', name: 'groq', baseURL: groq.baseURL, model: 'groq-stub', apiKey: 'stub-key', pricing },
        { fetch, timeoutMs: 5_000 },
      ),
      pricing,
    },
    { name: 'offline', model: new OfflineExtractiveModel(), pricing: OfflineExtractiveModel.pricing },
  ];
}

function config() {
  const parsed = loadConfig({ AGENT_TOKEN: TOKEN, IP_SALT: 'salt-for-tests-0123456789' }, { requireToken: true });
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.config;
}

beforeAll(async () => {
  store = await startStore({ dataDir: 'memory://' });
  groq = await startStubOpenAIServer();
  agent = await startAgentService({ config: config(), store, log: () => {}, cacheStore: new InMemoryCacheStore(), candidates: candidates() });
  const chunk = agent.kb.chunk(POOL_CHUNK)!;
  const sentence = chunk.text.slice(0, chunk.text.indexOf('. ') + 1);
  groq.script({ kind: 'reply', text: JSON.stringify({ claims: [{ text: sentence, citations: [POOL_CHUNK] }] }) });
}, 120_000);

afterAll(async () => {
  await agent?.close();
  await groq?.close();
  await store?.close();
});

describe('S-268: failProviders naming a provider that is not configured is refused', () => {
  it('POST /v1/runs: 400 invalid_request naming the configured providers, not an answer from the cache', async () => {
    const app = createApp(appDepsOf(agent));
    // Asked once: groq answers, and the verified answer is cached.
    const first = await app.request('/v1/runs', { method: 'POST', headers: AUTH, body: JSON.stringify({ question: QUESTION }) });
    const firstResult = parseSse(await first.text()).at(-1)!.data as RunResultView;
    expect(firstResult.providers.map((p) => `${p.provider}:${p.kind}`)).toEqual(['groq:served']);
    expect(groq.requests).toHaveLength(1);

    // mistral is a known provider, so the schema takes it; this deployment never calls it, so failing it fails nothing.
    const res = await app.request('/v1/runs', { method: 'POST', headers: AUTH, body: JSON.stringify({ question: QUESTION, failProviders: ['mistral'] }) });
    const body = await res.text();
    // The old agent streamed a run served from the cache (`hit:exact`), its "mistral outage" simulated nowhere.
    expect(res.status, body).toBe(400);
    expect(JSON.parse(body)).toEqual({
      error: {
        code: 'invalid_request',
        message: `failProviders names mistral, which is not configured here, so failing it would change nothing. Configured: groq, offline. ${API_ERRORS.invalid_request.remedy}`,
      },
    });
    expect(groq.requests).toHaveLength(1);

    // A configured one is still failed for that run.
    const failed = await app.request('/v1/runs', { method: 'POST', headers: AUTH, body: JSON.stringify({ question: QUESTION, failProviders: ['groq'] }) });
    expect(failed.status).toBe(200);
    const result = parseSse(await failed.text()).at(-1)!.data as RunResultView;
    expect(result.providers.map((p) => `${p.provider}:${p.kind}`)).toEqual(['groq:injected_failure', 'offline:served']);
  });

  it('ask --fail-provider (runAgent): a UserError naming the configured providers; nothing is sent', async () => {
    const source = loadCorpusSource();
    const kb = await KnowledgeBase.build({ documents: source.documents, estate: source.estate });
    const services = modelServicesFor(config(), { candidates: candidates() });
    const before = groq.requests.length;
    const asked = runAgent({ kb, question: QUESTION, services, failProviders: ['gemini'] });
    await expect(asked).rejects.toThrow(UserError);
    await expect(runAgent({ kb, question: QUESTION, services, failProviders: ['gemini'] })).rejects.toThrow(
      '--fail-provider names gemini, which is not configured here, so failing it would change nothing. Configured: groq, offline.',
    );
    expect(groq.requests.length).toBe(before);
  });
});
