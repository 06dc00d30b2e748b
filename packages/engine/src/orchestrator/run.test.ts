import { beforeAll, describe, expect, it } from 'vitest';
import { candidatesFromConfigs, providerConfigs } from '../models/providers.ts';
import { ProviderHealth } from '../models/provider-health.ts';
import { InMemoryCacheStore } from '../models/in-memory-cache-store.ts';
import { SemanticCache } from '../models/semantic-cache.ts';
import { HashingEmbedder } from '../retrieval/hashing-embedder.ts';
import type { KnowledgeBase } from '../knowledge-base.ts';
import type { NodeEvent, RunEvent } from './events.ts';
import { stackModelFactory } from './model-factory.ts';
import { createOrchestrator, type Orchestrator } from './orchestrator.ts';
import { corpusKnowledgeBase } from './testing/corpus-fixture.ts';

/**
 * One run of each terminal through the real stack with no keys:
 * cache(guard(router([offline]))) — what `npx sandscope ask` does offline.
 */
let kb: KnowledgeBase;
let orchestrator: Orchestrator;
let models: ReturnType<typeof stackModelFactory>;
const sunk: RunEvent[] = [];

beforeAll(async () => {
  kb = await corpusKnowledgeBase();
  const noNetwork = (() => Promise.reject(new Error('no network in tests'))) as typeof fetch;
  models = stackModelFactory({
    candidates: candidatesFromConfigs(providerConfigs(), { fetch: noNetwork, timeoutMs: 1000 }),
    health: new ProviderHealth(),
    cache: new SemanticCache({ store: new InMemoryCacheStore(), embedder: new HashingEmbedder() }),
    budgetUsd: 0.02,
  });
  let t = 1_700_000_000_000;
  orchestrator = createOrchestrator({ kb, models, clock: () => (t += 1), sink: (e) => sunk.push(e) });
});

const path = (trace: readonly RunEvent[]) => trace.filter((e): e is NodeEvent => e.type === 'node' && e.kind === 'end').map((e) => e.node);
const endOf = (trace: readonly RunEvent[], node: string) => trace.find((e): e is NodeEvent => e.type === 'node' && e.kind === 'end' && e.node === node)!;

describe('a run of each terminal (offline stack)', () => {
  it('refuses a question about a verified corpus gap (DNS) without ever calling a model', async () => {
    const r = await orchestrator.run({ question: 'How do we configure DNS resolvers and nameservers?' });
    expect(r.terminal).toBe('refuse');
    expect(r.verdict).toBe('refused');
    expect(r.outcome).toBe('refused');
    expect(path(r.trace)).toEqual(['classify', 'retrieve', 'assess_evidence', 'refuse']);
    expect(r.attempts).toEqual([]);
    expect(r.providers).toEqual([]);
    expect(r.claims).toEqual([]);
    // S-108: the model rates this below the answer line but above the line where it is sure, so the refusal claims
    // only that: unsure, on the result, in its text and on the span a stored run's page reads.
    expect(r.refusal).toBe('unsure');
    expect(r.answer).toMatch(/^Not answered: the model is unsure/);
    expect(endOf(r.trace, 'assess_evidence').data?.refusal).toBe('unsure');
    // The refusal's trace keeps the passage its reasons name as the closest, by id, for the run page to link (S-107).
    const closest = endOf(r.trace, 'assess_evidence').data?.closest;
    expect(typeof closest).toBe('string');
    expect(r.reasons.join(' ')).toContain(`“${kb.chunk(closest as string)!.heading}”`);
  });

  it('refuses a question it could read only in part, and says which words, where the rest matches a service (S-109)', async () => {
    const r = await orchestrator.run({ question: '订单数据库 orders-db 的连接池上限是多少？' });
    expect(r.verdict).toBe('refused');
    expect(path(r.trace)).toEqual(['classify', 'retrieve', 'assess_evidence', 'refuse']);
    expect(r.claims).toEqual([]);
    expect(r.refusal).toBe('unread');
    expect(r.answer).toMatch(/^Not answered: the question has words the library's index cannot read \(“订单数据库”, “的连接池上限是多少”\)/);
    expect(endOf(r.trace, 'assess_evidence').data?.refusal).toBe('unread');
  });

  it('stops a change review of a tier-1 service at await_approval', async () => {
    const r = await orchestrator.run({ question: 'Can we raise the orders-db connection pool ceiling during an incident?', workload: 'change' });
    expect(r.terminal).toBe('await_approval');
    expect(r.outcome).toBe('awaiting_approval');
    expect(r.workload).toBe('change');
    expect(r.risk?.service).toBe('orders-db');
    expect(r.risk!.score).toBeGreaterThan(r.risk!.threshold);
    expect(path(r.trace).slice(-3)).toEqual(['propose_action', 'risk_gate', 'await_approval']);
    expect(r.action).toMatch(/^Change under review/);
    // The draft is verified and shown; nothing after the gate ran.
    expect(r.claims.length).toBeGreaterThan(0);
    expect(r.attempts.map((a) => a.verified)).toEqual([true]);
  });

  it('emits a low-risk change (an act on a tier-4 leaf: nothing depends on it)', async () => {
    const r = await orchestrator.run({ question: 'Can we raise the report-scheduler job deadline to 60 minutes?', workload: 'change' });
    expect(r.terminal).toBe('emit');
    expect(r.outcome).toBe('answered');
    expect(r.risk?.service).toBe('report-scheduler');
    expect(r.risk!.score).toBeLessThanOrEqual(r.risk!.threshold);
    expect(path(r.trace)).toEqual(['classify', 'retrieve', 'assess_evidence', 'hypothesise', 'verify', 'propose_action', 'risk_gate', 'emit']);
    for (const c of r.claims) for (const id of c.citations) expect(kb.chunk(id)).toBeDefined();
  });

  it('keeps an adjudicated PARTIAL verdict flagged all the way to the result', async () => {
    // Bands that leave every likely question to adjudication: this test is about the route, not the model.
    let t = 1_800_000_000_000;
    const unsure = createOrchestrator({ kb: await corpusKnowledgeBase({ insufficientBelow: 0.05, sufficientAbove: 1 }), models, clock: () => (t += 1) });
    const r = await unsure.run({ question: 'Who approves an emergency change?' });
    expect(path(r.trace).slice(0, 4)).toEqual(['classify', 'retrieve', 'assess_evidence', 'adjudicate']);
    expect(endOf(r.trace, 'adjudicate').data['decision']).toBe('partial');
    expect(r.verdict).toBe('partial');
    expect(r.terminal).toBe('emit');
    expect(r.outcome).toBe('partial');
    expect(endOf(r.trace, 'emit').data['verdict']).toBe('partial');
    expect(r.action).toContain('PARTIAL');
  });

  it('escalates when every provider fails, and its outcome says so: the gate let it through, but nothing is answered', async () => {
    const r = await orchestrator.run({ question: 'What is the connection pool ceiling for orders-db?', failProviders: ['offline'] });
    expect(r.terminal).toBe('escalate');
    // The gate's verdict stays what the gate said; the outcome is what the person is told.
    expect(r.verdict).toBe('answered');
    expect(r.outcome).toBe('escalated');
    expect(r.claims).toEqual([]);
    expect(r.sources).toEqual([]);
    expect(r.answer).toMatch(/^Escalated to a person/);
  });

  it('gives the same gate decision to the same question under every workload (a workload cannot loosen the gate)', async () => {
    const q = 'What is the connection pool ceiling for events-bus?';
    const runs = await Promise.all((['triage', 'change', 'postmortem'] as const).map((workload) => orchestrator.run({ question: q, workload })));
    expect(runs.map((r) => [r.band, r.score, r.verdict, r.terminal])).toEqual(Array(3).fill([runs[0]!.band, runs[0]!.score, 'refused', 'refuse']));
  });
});

describe('the trace', () => {
  it('is one ordered list: node start/end pairs with key outputs, and the provider events of each call', async () => {
    const before = sunk.length;
    const seen: RunEvent[] = [];
    const r = await orchestrator.run({ question: 'What is the connection pool ceiling for orders-db?', onEvent: (e) => seen.push(e) });
    expect(seen).toEqual(r.trace);
    expect(sunk.slice(before)).toEqual(r.trace);
    expect(r.trace.map((e) => e.seq)).toEqual(r.trace.map((_, i) => i + 1));
    expect(new Set(r.trace.map((e) => e.runId))).toEqual(new Set([r.runId]));

    const nodes = r.trace.filter((e): e is NodeEvent => e.type === 'node');
    for (let i = 0; i < nodes.length; i += 2) {
      expect([nodes[i]!.kind, nodes[i + 1]!.kind, nodes[i + 1]!.node]).toEqual(['start', 'end', nodes[i]!.node]);
      expect(nodes[i + 1]!.durationMs).toBeGreaterThanOrEqual(0);
    }
    expect(endOf(r.trace, 'classify').data).toMatchObject({ workload: 'triage', entities: ['orders-db'], services: ['orders-db'] });
    expect(endOf(r.trace, 'retrieve').data).toMatchObject({
      degraded: false,
      top: expect.arrayContaining([expect.objectContaining({ chunkId: expect.any(String), bm25: expect.any(Number) })]),
    });
    expect(endOf(r.trace, 'assess_evidence').data).toMatchObject({ band: 'sufficient', score: expect.any(Number), coverage: 1, reasons: expect.any(Array) });
    expect(endOf(r.trace, 'hypothesise').data).toMatchObject({
      attempt: 1,
      provider: 'offline',
      tokensIn: expect.any(Number),
      tokensOut: expect.any(Number),
      costUsd: 0,
      claims: expect.any(Number),
      cache: 'miss',
    });
    expect(endOf(r.trace, 'verify').data).toMatchObject({ ok: true, failing: [] });
    expect(endOf(r.trace, 'propose_action').data).toMatchObject({ kind: 'advisory', action: expect.stringContaining('Triage advice') });
    expect(endOf(r.trace, 'risk_gate').data).toMatchObject({ score: expect.any(Number), factors: expect.any(Array), threshold: 0.5 });
    expect(endOf(r.trace, 'emit').data).toMatchObject({ terminal: 'emit', verdict: 'answered' });

    // The router's event lands in the same trace, between hypothesise's start and end, attributed to it.
    const served = r.trace.find((e) => e.type === 'provider');
    expect(served).toMatchObject({ type: 'provider', node: 'hypothesise', provider: 'offline', kind: 'served' });
    expect(r.providers).toEqual([served]);
    expect(r.spend).toEqual({ reservedUsd: 0, spentUsd: 0, ceilingUsd: 0.02 });
  });
});
