import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

/*
 * lib/agent.ts parses every agent answer with the shared contract (@sandscope/api).
 * A body that has drifted must reach the page as a problem it renders (a
 * bad_gateway naming the field), never as a crash or a page of `undefined`:
 * the same path the run reads take. The agent is a stubbed fetch.
 */

// Next resolves these itself; lib/agent.ts is server code, imported here outside Next.
vi.mock('server-only', () => ({}));
vi.mock('next/headers', () => ({ cookies: async () => ({ get: () => undefined }), headers: async () => new Headers() }));

const { attempt, getCorpus, getEstate, getEvalLatest, getGraph, getLibrary, getProviders } = await import('../lib/agent');

function agentAnswers(body: unknown, status = 200) {
  vi.stubGlobal(
    'fetch',
    vi.fn(async () => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })),
  );
}

beforeEach(() => {
  vi.stubEnv('AGENT_URL', 'http://agent.test');
  vi.stubEnv('AGENT_TOKEN', 'test-token-0123456789abcdef0123456789');
});

afterEach(() => {
  vi.unstubAllGlobals();
  vi.unstubAllEnvs();
});

const corpus = {
  version: 'kb-1',
  documents: [{ doc: 'a.md', title: 'A', text: 'text', words: 1 }],
  chunks: [{ id: 'a#h', doc: 'a.md', heading: 'H' }],
  gaps: [{ topic: 'TLS', terms: ['tls'], correction: false }],
  questions: { total: 0, byMechanism: {} },
};

describe('the website parses reference reads with the shared contract', () => {
  it('a corpus that matches is read as sent', async () => {
    agentAnswers(corpus);
    expect(await attempt(getCorpus)).toEqual({ ok: true, value: corpus });
  });

  it('a drifted corpus is a bad_gateway problem naming the field, not a crash', async () => {
    agentAnswers({ ...corpus, gaps: [{ topic: 'TLS', terms: ['tls'], correction: 'covered' }] });
    const read = await attempt(getCorpus);
    expect(read.ok).toBe(false);
    if (read.ok) return;
    expect(read.problem).toMatchObject({ code: 'bad_gateway', status: 502 });
    expect(read.problem.detail).toContain('/v1/corpus does not match the contract at gaps.0.correction');
  });

  it('each other read is checked too: estate, graph, providers, evaluation', async () => {
    const drifted: [() => Promise<unknown>, unknown, string][] = [
      [getEstate, { company: 'x', services: [{ id: 's' }], dependencies: [], faults: [], properties: [], policyValues: [] }, 'services.0.name'],
      [getGraph, { nodes: [], edges: [{ source: 'a', target: 'b' }], mermaid: '' }, 'edges.0.from'],
      [getLibrary, { name: 'corpus', bundled: 'yes', version: 'v', documents: 1, passages: 1 }, 'bundled'],
      [getProviders, [{ name: 'offline', model: 'extractive-v1', configured: true }], 'the body'],
      [getEvalLatest, { summary: { falseAnswerRate: '3%' }, questions: [] }, 'summary.falseAnswerRate'],
    ];
    for (const [read, body, where] of drifted) {
      agentAnswers(body);
      const result = await attempt(read);
      expect(result.ok ? 'parsed' : result.problem.detail).toContain(`does not match the contract at ${where}`);
    }
  });

  it('no estate and no evaluation yet (404) are null, not problems', async () => {
    agentAnswers({ error: { code: 'not_found', message: 'none' } }, 404);
    expect(await attempt(getEstate)).toEqual({ ok: true, value: null });
    expect(await attempt(getEvalLatest)).toEqual({ ok: true, value: null });
  });
});
