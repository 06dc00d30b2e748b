import { KnowledgeBase } from '@sandscope/engine';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadCorpusSource } from './corpus-source.ts';
import { modelServicesFromEnv, runAgent } from './run-agent.ts';
import { UserError } from './user-error.ts';

let kb: KnowledgeBase;
beforeAll(async () => {
  const source = loadCorpusSource();
  kb = await KnowledgeBase.build({ documents: source.documents, estate: source.estate });
});

const QUESTION = 'What is the connection pool ceiling for orders-db?';

describe('runAgent (the composition root)', () => {
  it('runs the whole graph offline when no provider key is set', async () => {
    const services = modelServicesFromEnv({});
    expect(services.candidates.map((c) => c.name)).toEqual(['offline']);
    const r = await runAgent({ kb, question: QUESTION, services });
    expect(r.workload).toBe('triage');
    expect(['emit', 'await_approval']).toContain(r.terminal);
    expect(r.attempts[0]).toMatchObject({ provider: 'offline', verified: true });
    expect(r.providers.map((p) => [p.provider, p.kind])).toEqual([['offline', 'served']]);
    expect(r.spend.ceilingUsd).toBe(0.02);
  });

  it('fails over from a configured provider that errors to the offline model, and reports both in the trace', async () => {
    let requests = 0;
    const failing = (async () => {
      requests++;
      return new Response(JSON.stringify({ error: { message: 'upstream exploded' } }), { status: 500, headers: { 'content-type': 'application/json' } });
    }) as typeof fetch;
    const services = modelServicesFromEnv({ GROQ_API_KEY: 'test-key' }, { fetch: failing, timeoutMs: 2000 });
    expect(services.candidates.map((c) => c.name)).toEqual(['groq', 'offline']);
    const r = await runAgent({ kb, question: QUESTION, services });
    expect(requests).toBeGreaterThan(0);
    expect(r.providers.map((p) => [p.provider, p.kind])).toEqual([
      ['groq', 'failed'],
      ['offline', 'served'],
    ]);
    expect(r.attempts[0]!.provider).toBe('offline');
  });

  it('scopes injected failures to one run (T-6): failing every provider escalates that run only', async () => {
    const services = modelServicesFromEnv({});
    const failed = await runAgent({ kb, question: QUESTION, services, failProviders: ['offline'] });
    expect(failed.terminal).toBe('escalate');
    expect(failed.attempts[0]!.error?.code).toBe('all_providers_failed');
    expect(failed.providers.map((p) => p.kind)).toEqual(['injected_failure']);
    const next = await runAgent({ kb, question: QUESTION, services });
    expect(next.terminal).not.toBe('escalate');
  });

  it('turns bad input into a one-line UserError', async () => {
    const services = modelServicesFromEnv({});
    await expect(runAgent({ kb, question: QUESTION, services, workload: 'deploy' })).rejects.toThrow(UserError);
    await expect(runAgent({ kb, question: QUESTION, services, workload: 'deploy' })).rejects.toThrow(
      /^unknown workload "deploy"\. Choose one of: triage, change, postmortem/,
    );
    await expect(runAgent({ kb, question: QUESTION, services, failProviders: ['grok'] })).rejects.toThrow(/^unknown provider "grok" to fail/);
    expect(() => modelServicesFromEnv({ RUN_BUDGET_USD: '0' })).toThrow(UserError);
  });
});
