import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createHttpModel, InMemoryCacheStore, OfflineExtractiveModel, perMillionTokens, type RouterCandidate } from '@sandscope/engine/models';
import { startStubOpenAIServer, type StubOpenAIServer } from '@sandscope/engine/testing';
import { replayedReaderGroups, replayedReaderSchema } from '@sandscope/eval';
import { saveEvalRun, startStore, type Store } from '@sandscope/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type ServeConfig } from '../config.ts';
import { InProcessLimiter } from '../limits/in-process-limiter.ts';
import { type Admission, LIMIT_ERROR_REMEDIES, LimiterUnavailableError, type RateLimiter } from '../limits/limiter.ts';
import { type AgentService, type AgentServiceOptions, startAgentService } from '../service/compose.ts';
import { readLatestEvaluation } from '../service/eval-latest.ts';
import type { NodeEventView, ProviderEventView, RunResultView } from '../service/run-views.ts';
import { API_ERRORS } from './api-error.ts';
import { appDepsOf, type AppDeps, createApp } from './app.ts';
import { SESSION_COOKIE } from './session.ts';
import { parseExposition, sampleOf } from '../service/testing/exposition.ts';
import { NoCacheStore } from './testing/run-burst.ts';
import { parseSse, type SseEvent } from './testing/sse-events.ts';

/**
 * The agent's HTTP API driven in-process with `app.request()` (STYLE 13) over
 * ONE embedded PGlite for the whole file (it takes seconds to start). Several
 * apps share it: the default offline one, one over two stub providers, and
 * ones with a limiter that refuses or is unreachable.
 */

const TOKEN = 'test-token-0123456789abcdef0123456789';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const ANSWERABLE = 'What is the connection pool ceiling for orders-db?';
const UNANSWERABLE = 'How do we rotate TLS certificates?';
// An act (a proposed tier-1 failover), not a look-up: since issue 13 a look-up such as "What is the failover
// procedure for orders-db?" is never gated, whatever production words its question or passages carry.
const GATED = { question: 'Should we fail over orders-db to the replica?', workload: 'change' } as const;
const POOL_CHUNK = 'architecture-order-path#orders-db-connection-pool-ceiling';

function config(extra: Record<string, string> = {}): ServeConfig {
  const parsed = loadConfig({ AGENT_TOKEN: TOKEN, IP_SALT: 'salt-for-tests-0123456789', ...extra }, { requireToken: true });
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.config;
}

let store: Store;
const agents: AgentService[] = [];
const stubs: StubOpenAIServer[] = [];

async function agentWith(options: Partial<AgentServiceOptions> = {}, env: Record<string, string> = {}): Promise<AgentService> {
  // The agents here share one database, and the cache now defaults to it (issue 11): each keeps its own, so one
  // test's answer is not another's cache hit (the daily-ceiling test needs its run to reach a provider).
  const agent = await startAgentService({ config: config(env), store, log: () => {}, cacheStore: new InMemoryCacheStore(), ...options });
  agents.push(agent);
  return agent;
}

beforeAll(async () => {
  store = await startStore({ dataDir: 'memory://' });
}, 120_000);

afterAll(async () => {
  await Promise.all(agents.map((a) => a.close()));
  await Promise.all(stubs.map((s) => s.close()));
  await store?.close();
});

/** The `sandscope_session=…` pair from a response, to send back as a Cookie header. */
function sessionOf(res: Response): string {
  const cookie = res.headers.get('set-cookie') ?? '';
  const pair = new RegExp(`${SESSION_COOKIE}=[^;]+`).exec(cookie)?.[0];
  if (!pair) throw new Error(`no ${SESSION_COOKIE} cookie in "${cookie}"`);
  return pair;
}

interface RunCall {
  readonly res: Response;
  readonly events: SseEvent[];
  readonly result: RunResultView;
  readonly cookie: string;
}

async function postRun(app: ReturnType<typeof createApp>, body: unknown, headers: Record<string, string> = {}): Promise<RunCall> {
  const res = await app.request('/v1/runs', {
    method: 'POST',
    headers: { ...AUTH, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  const events = parseSse(await res.text());
  const last = events[events.length - 1];
  expect(last?.event, JSON.stringify(last)).toBe('result');
  return { res, events, result: last!.data as RunResultView, cookie: headers.cookie ?? sessionOf(res) };
}

const nodeEvents = (events: SseEvent[]) => events.filter((e) => e.event === 'node').map((e) => e.data as NodeEventView);

describe('the agent API over the default (offline) stack', () => {
  let agent: AgentService;
  let app: ReturnType<typeof createApp>;
  beforeAll(async () => {
    agent = await agentWith();
    app = createApp(appDepsOf(agent));
  }, 120_000);

  describe('bearer token (T-3)', () => {
    it('401 unauthorized without a token, with a wrong one, and with a wrong scheme — exact body', async () => {
      const none = await app.request('/v1/runs');
      expect(none.status).toBe(401);
      expect(await none.json()).toEqual({ error: { code: 'unauthorized', message: `No bearer token was sent. ${API_ERRORS.unauthorized.remedy}` } });
      expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);

      const wrong = await app.request('/v1/runs', { headers: { authorization: `Bearer ${TOKEN}x` } });
      expect(wrong.status).toBe(401);
      expect(await wrong.json()).toEqual({ error: { code: 'unauthorized', message: `The bearer token is wrong. ${API_ERRORS.unauthorized.remedy}` } });

      const basic = await app.request('/v1/runs', { headers: { authorization: `Basic ${TOKEN}` } });
      expect(basic.status).toBe(401);

      // Every /v1 route, the spending ones included, before any work.
      for (const [method, path] of [
        ['POST', '/v1/runs'],
        ['POST', '/v1/runs/x/approve'],
        ['GET', '/v1/corpus'],
        ['GET', '/v1/library'],
        ['GET', '/v1/eval/latest'],
      ] as const) {
        const res = await app.request(path, { method });
        expect(res.status, `${method} ${path}`).toBe(401);
      }
      const ok = await app.request('/v1/providers', { headers: AUTH });
      expect(ok.status).toBe(200);
    });

    it('/healthz and /metrics need no token', async () => {
      expect((await app.request('/healthz')).status).toBe(200);
      expect((await app.request('/metrics')).status).toBe(200);
    });
  });

  describe('POST /v1/runs', () => {
    it('streams node events in graph order, then the result; the run reads back with its spans and resolvable citations', async () => {
      const { res, events, result, cookie } = await postRun(app, { question: ANSWERABLE });
      expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(res.headers.get('set-cookie')).toMatch(new RegExp(`^${SESSION_COOKIE}=[A-Za-z0-9_-]{43}; .*HttpOnly; SameSite=Lax`));

      const nodes = nodeEvents(events);
      expect(nodes.map((n) => `${n.node}:${n.kind}`)).toEqual([
        'classify:start',
        'classify:end',
        'retrieve:start',
        'retrieve:end',
        'assess_evidence:start',
        'assess_evidence:end',
        'hypothesise:start',
        'hypothesise:end',
        'verify:start',
        'verify:end',
        'propose_action:start',
        'propose_action:end',
        'risk_gate:start',
        'risk_gate:end',
        'emit:start',
        'emit:end',
      ]);
      expect(nodes.map((n) => n.seq)).toEqual(nodes.map((_, i) => i + 1));
      expect(nodes.every((n) => n.runId === result.runId)).toBe(true);
      // The offline model served the draft; its provider event came while hypothesise ran.
      const provider = events.findIndex((e) => e.event === 'provider');
      expect(events[provider]?.data).toMatchObject({ runId: result.runId, provider: 'offline', kind: 'served' });
      expect(provider).toBeGreaterThan(events.findIndex((e) => e.event === 'node' && (e.data as NodeEventView).node === 'hypothesise'));

      expect(result).toMatchObject({ parentRunId: null, verdict: 'answered', terminal: 'emit', workload: 'triage' });
      expect(result.claims.length).toBeGreaterThan(0);
      expect(result.trace).toEqual(nodes);

      const detail = await app.request(`/v1/runs/${result.runId}`, { headers: { ...AUTH, cookie } });
      expect(detail.status).toBe(200);
      const body = (await detail.json()) as {
        run: Record<string, unknown>;
        spans: NodeEventView[];
        claims: { index: number; text: string; citations: { chunkId: string; doc: string; heading: string; text: string }[] }[];
        providerEvents: ProviderEventView[];
        spend: { ceilingUsd: number; ledger: unknown[] };
      };
      expect(body.run).toMatchObject({
        id: result.runId,
        status: 'completed',
        terminal: 'emit',
        verdict: 'answered',
        sessionOwned: true,
        question: ANSWERABLE,
        parentRunId: null,
      });
      expect(body.spans).toEqual(nodes);
      expect(body.claims.map((c) => c.text)).toEqual(result.claims.map((c) => c.text));
      for (const claim of body.claims) {
        expect(claim.citations.length).toBeGreaterThan(0);
        for (const citation of claim.citations) {
          const chunk = agent.kb.chunk(citation.chunkId);
          expect(chunk, citation.chunkId).toBeDefined();
          expect(citation).toEqual({ chunkId: chunk!.id, doc: chunk!.doc, heading: chunk!.heading, text: chunk!.text, textFrom: 'record' });
        }
      }
      expect(body.providerEvents).toEqual([expect.objectContaining({ runId: result.runId, seq: 1, provider: 'offline', kind: 'served' })]);
      expect(body.spend.ceilingUsd).toBe(0.02);
      expect(body.spend.ledger.map((l) => (l as { kind: string }).kind)).toEqual(['reserve', 'settle', 'release']);

      // Another session reads the run but does not own it.
      const other = await app.request(`/v1/runs/${result.runId}`, { headers: AUTH });
      expect(((await other.json()) as { run: { sessionOwned: boolean } }).run.sessionOwned).toBe(false);
    });

    it('a claim from a section merged into its passage cites that section, in the result and as the run reads back (S-142)', async () => {
      // Its own agent, so its run does not spend the shared one's rate-limit window.
      const own = createApp(appDepsOf(await agentWith()));
      const { result, cookie } = await postRun(own, { question: 'What is a standard change?' });
      expect(result).toMatchObject({ verdict: 'answered' });
      const source = result.sources.find((s) => s.chunkId === 'policy-change-management#change-management-policy');
      expect(source?.heading).toBe('Standard, normal and emergency changes');
      const detail = (await (await own.request(`/v1/runs/${result.runId}`, { headers: { ...AUTH, cookie } })).json()) as {
        claims: { citations: { chunkId: string; heading: string }[] }[];
      };
      const headings = detail.claims.flatMap((c) => c.citations.filter((x) => x.chunkId === source!.chunkId).map((x) => x.heading));
      expect(headings.length).toBeGreaterThan(0);
      expect(new Set(headings)).toEqual(new Set(['Standard, normal and emergency changes']));
    });

    it('an unanswerable question ends in refuse: no draft, no claims, no model call', async () => {
      const { events, result } = await postRun(app, { question: UNANSWERABLE });
      expect(result).toMatchObject({ verdict: 'refused', terminal: 'refuse', claims: [], sources: [] });
      expect(
        nodeEvents(events)
          .map((n) => n.node)
          .filter((n, i, all) => all.indexOf(n) === i),
      ).toEqual(['classify', 'retrieve', 'assess_evidence', 'refuse']);
      expect(events.some((e) => e.event === 'provider')).toBe(false);
      const detail = (await (await app.request(`/v1/runs/${result.runId}`, { headers: AUTH })).json()) as {
        run: { status: string; terminal: string };
        claims: unknown[];
      };
      expect(detail.run).toMatchObject({ status: 'completed', terminal: 'refuse' });
      expect(detail.claims).toEqual([]);
    });

    it('GET /v1/runs lists newest first, paged; a bad page is 400 naming the field', async () => {
      const res = await app.request('/v1/runs?page=1&pageSize=1', { headers: AUTH });
      const page = (await res.json()) as { runs: { id: string; score: number | null; status: string }[]; page: number; pageSize: number; total: number };
      expect(page).toMatchObject({ page: 1, pageSize: 1 });
      expect(page.runs).toHaveLength(1);
      expect(page.total).toBeGreaterThanOrEqual(2);
      expect(Object.keys(page.runs[0]!).sort()).toEqual([
        'band',
        'costUsd',
        'createdAt',
        'id',
        'outcome',
        'parentRunId',
        'question',
        'score',
        'status',
        'terminal',
        'verdict',
        'workload',
      ]);
      const bad = await app.request('/v1/runs?pageSize=500', { headers: AUTH });
      expect(bad.status).toBe(400);
      expect(await bad.json()).toEqual({ error: { code: 'invalid_request', message: `pageSize must be at most 100. ${API_ERRORS.invalid_request.remedy}` } });
    });

    it('404 not_found for a run that does not exist', async () => {
      for (const id of ['not-a-uuid', '00000000-0000-4000-8000-000000000000']) {
        const res = await app.request(`/v1/runs/${id}`, { headers: AUTH });
        expect(res.status).toBe(404);
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe('not_found');
      }
    });
  });

  describe('request validation', () => {
    const post = (init: RequestInit & { duplex?: 'half' }) =>
      app.request('/v1/runs', {
        method: 'POST',
        ...init,
        headers: { ...AUTH, 'content-type': 'application/json', ...(init.headers as Record<string, string>) },
      });

    it('413 payload_too_large over MAX_BODY_BYTES, by Content-Length', async () => {
      const res = await post({ body: JSON.stringify({ question: 'x'.repeat(20_000) }) });
      expect(res.status).toBe(413);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('payload_too_large');
    });

    it('413 on the raw stream: a chunked body with no Content-Length is cut off at the limit', async () => {
      let sent = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent >= 1_000_000) return controller.close();
          sent += 4096;
          controller.enqueue(new Uint8Array(4096).fill(0x20));
        },
      });
      const res = await post({ body, duplex: 'half' });
      expect(res.status).toBe(413);
      expect(await res.json()).toEqual({
        error: { code: 'payload_too_large', message: `The body is over the limit of 16384 bytes (MAX_BODY_BYTES). ${API_ERRORS.payload_too_large.remedy}` },
      });
      expect(sent).toBeLessThan(100_000);
    });

    it('400 question_too_long over MAX_QUESTION_CHARS; 400 invalid_request naming the field otherwise', async () => {
      const long = await post({ body: JSON.stringify({ question: 'why '.repeat(300) }) });
      expect(long.status).toBe(400);
      expect(await long.json()).toEqual({
        error: {
          code: 'question_too_long',
          message: `The question is 1199 characters; the limit is 1000 (MAX_QUESTION_CHARS). ${API_ERRORS.question_too_long.remedy}`,
        },
      });
      const cases: [unknown, string][] = [
        [{ question: ANSWERABLE, workload: 'deploy' }, 'workload must be one of triage, change, postmortem.'],
        [{ question: 42 }, 'question must be a string.'],
        [{ question: '   ' }, 'question must not be empty.'],
        [{ question: ANSWERABLE, failProviders: ['acme'] }, 'failProviders.0 must name a provider'],
        [{ question: ANSWERABLE, sessionId: 'x' }, 'body has unknown field(s): sessionId.'],
      ];
      for (const [body, message] of cases) {
        const res = await post({ body: JSON.stringify(body) });
        expect(res.status, JSON.stringify(body)).toBe(400);
        const error = ((await res.json()) as { error: { code: string; message: string } }).error;
        expect(error.code).toBe('invalid_request');
        expect(error.message).toContain(message);
      }
      const notJson = await post({ body: '{"question": ' });
      expect(((await notJson.json()) as { error: { message: string } }).error.message).toMatch(/^The body is not valid JSON\./);
    });

    it('unknown fields are named up to a few, then counted; a huge key is cut short — the message stays small (issue 12, defect 8)', async () => {
      // A deployment that raised MAX_BODY_BYTES: the body can carry a multi-MB list of keys.
      const roomy = createApp(appDepsOf(agent, { maxBodyBytes: 8_000_000 }));
      const many: Record<string, string> = { question: ANSWERABLE };
      for (let i = 0; i < 200_000; i++) many[`k${i}`] = '';
      const huge = { question: ANSWERABLE, ['x'.repeat(1_000_000)]: 1 };
      const refused = async (body: unknown) => {
        const res = await roomy.request('/v1/runs', { method: 'POST', headers: { ...AUTH, 'content-type': 'application/json' }, body: JSON.stringify(body) });
        expect(res.status).toBe(400);
        return ((await res.json()) as { error: { code: string; message: string } }).error;
      };
      const listed = await refused(many);
      expect(listed.code).toBe('invalid_request');
      expect(listed.message).toBe(`body has unknown field(s): k0, k1, k2, k3, k4 and 199995 more. ${API_ERRORS.invalid_request.remedy}`);
      const long = await refused(huge);
      expect(long.message).toMatch(/^body has unknown field\(s\): x{40}… \(1000000 characters\)\. /);
      expect(long.message.length).toBeLessThan(300);
      // Any detail that quotes the request back is capped at the boundary: a 10,000-character run id in the path. S-212:
      // the id is quoted to 80 characters, so the message still says what happened; it was cut inside the id at 500.
      const id = 'r'.repeat(10_000);
      const missing = await app.request(`/v1/runs/${id}`, { headers: AUTH });
      expect(missing.status).toBe(404);
      const message = ((await missing.json()) as { error: { message: string } }).error.message;
      expect(message.length).toBeLessThan(700);
      expect(message).toBe(`run ${'r'.repeat(79)}… does not exist. ${API_ERRORS.not_found.remedy}`);
    });

    it('400 invalid_request for a NUL or a lone surrogate in the question, naming the character and where — no run starts (issue 12, defect 5)', async () => {
      const before = (await agent.reader.list(1, 1)).total;
      // Raw JSON text: the escapes are what a client sends; JSON.parse turns them into the characters Postgres refuses.
      const cases: [string, string][] = [
        ['{"question":"What is the pool\\u0000 ceiling?"}', 'question contains a NUL character (U+0000) at character 17; remove it.'],
        [
          '{"question":"What is the pool \\ud800 ceiling?"}',
          'question contains an unpaired surrogate (U+D800) at character 18; send valid Unicode text (a \\uD800–\\uDBFF escape must be followed by a \\uDC00–\\uDFFF one).',
        ],
        ['{"question":"\\udc00 pool ceiling"}', 'question contains an unpaired surrogate (U+DC00) at character 1;'],
      ];
      for (const [body, message] of cases) {
        const res = await post({ body });
        expect(res.status, body).toBe(400);
        const error = ((await res.json()) as { error: { code: string; message: string } }).error;
        expect(error.code).toBe('invalid_request');
        expect(error.message).toContain(message);
        expect(error.message).toContain(API_ERRORS.invalid_request.remedy);
      }
      // A complete pair is an ordinary character (🙂), not an error.
      await postRun(app, { question: `${ANSWERABLE} \u{1F642}` });
      expect((await agent.reader.list(1, 1)).total).toBe(before + 1);
    });
  });

  describe('POST /v1/runs/:id/approve (seed ADR-0006)', () => {
    it('409 for a run not awaiting approval, 403 from another session, 201 creating a linked run; the gated run is never edited', async () => {
      const answered = await postRun(app, { question: ANSWERABLE });
      const notGated = await app.request(`/v1/runs/${answered.result.runId}/approve`, { method: 'POST', headers: { ...AUTH, cookie: answered.cookie } });
      expect(notGated.status).toBe(409);
      expect(((await notGated.json()) as { error: { code: string } }).error.code).toBe('not_awaiting_approval');

      const gated = await postRun(app, GATED);
      expect(gated.result.terminal, 'precondition: this question stops for approval').toBe('await_approval');
      const before = await (await app.request(`/v1/runs/${gated.result.runId}`, { headers: AUTH })).json();

      const stranger = await app.request(`/v1/runs/${gated.result.runId}/approve`, { method: 'POST', headers: AUTH });
      expect(stranger.status).toBe(403);
      expect(((await stranger.json()) as { error: { code: string } }).error.code).toBe('forbidden_session');

      const approved = await app.request(`/v1/runs/${gated.result.runId}/approve`, { method: 'POST', headers: { ...AUTH, cookie: gated.cookie } });
      expect(approved.status).toBe(201);
      const child = ((await approved.json()) as { run: RunResultView }).run;
      expect(child).toMatchObject({ parentRunId: gated.result.runId, terminal: 'emit', verdict: gated.result.verdict, claims: gated.result.claims });
      expect(child.runId).not.toBe(gated.result.runId);
      expect(child.trace.map((n) => `${n.node}:${n.kind}`)).toEqual(['emit:start', 'emit:end']);

      const parentView = (await (await app.request(`/v1/runs/${gated.result.runId}`, { headers: AUTH })).json()) as {
        run: object;
        spans: unknown;
        claims: unknown;
        children: { id: string; terminal: string }[];
      };
      expect(parentView.children).toEqual([expect.objectContaining({ id: child.runId, terminal: 'emit' })]);
      const { children: _c, ...parentRest } = parentView;
      const { children: _b, ...beforeRest } = before as typeof parentView;
      expect(parentRest).toEqual(beforeRest);

      const childView = (await (await app.request(`/v1/runs/${child.runId}`, { headers: { ...AUTH, cookie: gated.cookie } })).json()) as {
        run: { status: string; parentRunId: string; sessionOwned: boolean };
        parent: { id: string; terminal: string };
        claims: { citations: unknown[] }[];
      };
      expect(childView.run).toMatchObject({ status: 'completed', parentRunId: gated.result.runId, sessionOwned: true });
      expect(childView.parent).toEqual({ id: gated.result.runId, terminal: 'await_approval' });
      expect(childView.claims.length).toBe(gated.result.claims.length);

      const twice = await app.request(`/v1/runs/${gated.result.runId}/approve`, { method: 'POST', headers: { ...AUTH, cookie: gated.cookie } });
      expect(twice.status).toBe(409);
      const missing = await app.request('/v1/runs/00000000-0000-4000-8000-000000000000/approve', { method: 'POST', headers: AUTH });
      expect(missing.status).toBe(404);
    });

    it('an approval takes no fields: nothing or {} passes on; a field, bad JSON or an oversized body is refused before anything is claimed (S-136)', async () => {
      const approve = (body: string) =>
        app.request('/v1/runs/00000000-0000-4000-8000-000000000000/approve', {
          method: 'POST',
          headers: { ...AUTH, 'content-type': 'application/json' },
          body,
        });
      expect((await approve('{}')).status).toBe(404);
      for (const bad of ['{bad json', '{"runId":"x"}', '[]', 'null']) {
        const res = await approve(bad);
        expect(res.status).toBe(400);
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_request');
      }
      expect((await approve(`{"pad":"${'x'.repeat(3_000_000)}"}`)).status).toBe(413);
    });
  });

  describe('reading', () => {
    it('GET /v1/corpus, /v1/estate, /v1/graph, /v1/providers answer the documented shapes', async () => {
      const corpus = (await (await app.request('/v1/corpus', { headers: AUTH })).json()) as {
        version: string;
        documents: { doc: string; words: number }[];
        chunks: { id: string }[];
        gaps: { topic: string; correction: boolean }[];
        questions: { total: number };
        library: { name: string; bundled: boolean };
      };
      expect(corpus.version).toBe(agent.kb.version);
      // S-149: the pages speak of Larkspur only for the bundled library.
      expect(corpus.library).toEqual({ name: 'corpus', bundled: true });
      expect(corpus.documents).toHaveLength(agent.kb.documents.length);
      expect(corpus.chunks.map((c) => c.id)).toEqual(agent.kb.chunks.map((c) => c.id));
      expect(corpus.gaps.some((g) => g.topic === 'DNS' && !g.correction)).toBe(true);
      expect(corpus.gaps.some((g) => g.correction)).toBe(true);
      // S-151: the library named and sized without its text, for the pages that need only its name.
      const library = await app.request('/v1/library', { headers: AUTH });
      expect(await library.json()).toEqual({
        name: 'corpus',
        bundled: true,
        version: agent.kb.version,
        documents: agent.kb.documents.length,
        passages: agent.kb.chunks.length,
      });

      const estate = (await (await app.request('/v1/estate', { headers: AUTH })).json()) as { services: unknown[] };
      expect(estate.services.length).toBeGreaterThan(0);
      const graph = (await (await app.request('/v1/graph', { headers: AUTH })).json()) as { nodes: { id: string }[]; edges: unknown[]; mermaid: string };
      expect(graph.nodes.map((n) => n.id)).toContain('await_approval');
      expect(graph.mermaid).toContain('graph');
      expect(await (await app.request('/v1/providers', { headers: AUTH })).json()).toEqual({
        providers: [{ name: 'offline', model: 'extractive-v1', configured: true }],
      });
    });

    it('GET /v1/eval/latest: the newest eval_run row, else the report file; rows keep every decision feature', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'sandscope-eval-'));
      const reportPath = join(dir, 'evaluation.json');
      const row = {
        id: 'q1',
        corpus: 'larkspur',
        question: 'What is the pool ceiling?',
        label: 'answerable',
        mechanism: 'policy_value',
        band: 'sufficient',
        verdict: 'answered',
        answerability: 0.93,
        adjudicable: true,
        bestPasses: true,
        score: 9.5,
        source: 'right',
        rank: 1,
      };
      await writeFile(reportPath, JSON.stringify({ mode: 'cross-validated', n: 1, questions: [row] }));
      const reading = createApp(appDepsOf(agent, { latestEvaluation: () => readLatestEvaluation(store.db, reportPath, () => {}) }));
      try {
        const fromFile = await reading.request('/v1/eval/latest', { headers: AUTH });
        expect(await fromFile.json()).toEqual({ summary: { mode: 'cross-validated', n: 1 }, questions: [row], source: 'file' });
        await saveEvalRun(store.db, { kind: 'cross-validated', summary: { mode: 'cross-validated', n: 2, questions: [{ ...row, id: 'q2' }] } });
        const fromDb = (await (await reading.request('/v1/eval/latest', { headers: AUTH })).json()) as {
          summary: { n: number };
          questions: { id: string }[];
          source: string;
        };
        expect(fromDb).toMatchObject({ summary: { n: 2 }, questions: [{ id: 'q2', answerability: 0.93 }], source: 'database' });
      } finally {
        await store.db.query('delete from eval_run');
        await rm(dir, { recursive: true, force: true });
      }
    });

    it('GET /v1/eval/latest: the replayed reader’s groups from experiments/adjudicator-replay/summary.json beside the report; absent when missing; absent and logged when malformed', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'sandscope-eval-'));
      const reportPath = join(dir, 'evaluation.json');
      const summaryPath = join(dir, 'experiments', 'adjudicator-replay', 'summary.json');
      await writeFile(reportPath, JSON.stringify({ mode: 'leave-one-corpus-out', n: 1, questions: [] }));
      const lines: string[] = [];
      const reading = createApp(appDepsOf(agent, { latestEvaluation: () => readLatestEvaluation(store.db, reportPath, (line) => lines.push(line)) }));
      const latest = async () => {
        const res = await reading.request('/v1/eval/latest', { headers: AUTH });
        expect(res.status).toBe(200);
        return (await res.json()) as Record<string, unknown>;
      };
      try {
        // missing: the page says what it said before
        expect(await latest()).not.toHaveProperty('replayedReader');
        expect(lines).toEqual([]);

        // present: the committed summary, pooled per group by packages/eval (the agent computes, the page displays)
        const committed = readFileSync(new URL('../../../../docs/experiments/adjudicator-replay/summary.json', import.meta.url), 'utf8');
        await mkdir(dirname(summaryPath), { recursive: true });
        await writeFile(summaryPath, committed);
        const summary = replayedReaderSchema.parse(JSON.parse(committed));
        const present = await latest();
        expect(present.replayedReader).toEqual({
          generatedAt: summary.generatedAt,
          command: summary.command,
          ...(summary.notRemeasuredSince ? { notRemeasuredSince: summary.notRemeasuredSince } : {}),
          groups: replayedReaderGroups(summary),
        });
        expect(present.summary).toEqual({ mode: 'leave-one-corpus-out', n: 1 });
        expect(lines).toEqual([]);

        // malformed: a figure of the wrong type, then not JSON at all — the page still loads, the log says which file and why
        const broken = JSON.parse(committed) as { corpora: { reader: { falseAnswers: unknown } }[] };
        broken.corpora[0]!.reader.falseAnswers = 'three';
        await writeFile(summaryPath, JSON.stringify(broken));
        expect(await latest()).not.toHaveProperty('replayedReader');
        expect(lines).toHaveLength(1);
        expect(lines[0]).toContain(summaryPath);
        expect(lines[0]).toContain('corpora.0.reader.falseAnswers');
        await writeFile(summaryPath, '{ "generatedAt": ');
        expect(await latest()).not.toHaveProperty('replayedReader');
        expect(lines).toHaveLength(2);
        expect(lines[1]).toContain(summaryPath);
        expect(lines[1]).toMatch(/JSON/);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });

    it('GET /v1/eval/latest: the source audit of the record from experiments/source-audit/judgements.jsonl beside the report; absent when none is judged; absent and logged when a line is bad', async () => {
      const dir = await mkdtemp(join(tmpdir(), 'sandscope-eval-'));
      const reportPath = join(dir, 'evaluation.json');
      const judgementsPath = join(dir, 'experiments', 'source-audit', 'judgements.jsonl');
      const row = (id: string, label: string, verdict: string, source: string | null, cited: string[] | null) => ({
        id,
        corpus: 'c',
        label,
        verdict,
        source,
        cited,
      });
      const questions = [
        row('1', 'answerable', 'answered', 'wrong', ['c#p1']),
        row('2', 'answerable', 'answered', 'wrong', ['c#p2']),
        row('3', 'answerable', 'answered', 'right', ['c#gold3']),
        row('4', 'unanswerable', 'answered', null, ['c#p4']),
        row('5', 'unanswerable', 'refused', null, null),
      ];
      await writeFile(reportPath, JSON.stringify({ mode: 'leave-one-corpus-out', n: 5, questions }));
      const judgement = (id: string, cited: string, citedAnswers: string) =>
        JSON.stringify({ id, corpus: 'c', cited: [cited], labelled: `c#gold${id}`, citedAnswers, labelledAnswers: 'yes' });
      const lines: string[] = [];
      const reading = createApp(appDepsOf(agent, { latestEvaluation: () => readLatestEvaluation(store.db, reportPath, (line) => lines.push(line)) }));
      const latest = async () => (await (await reading.request('/v1/eval/latest', { headers: AUTH })).json()) as Record<string, unknown>;
      try {
        expect(await latest()).not.toHaveProperty('sourceAudit');
        await mkdir(dirname(judgementsPath), { recursive: true });
        // judged on passages the record no longer cites: nothing to say of this record
        await writeFile(judgementsPath, `${judgement('1', 'c#p9', 'no')}\n`);
        expect(await latest()).not.toHaveProperty('sourceAudit');
        await writeFile(judgementsPath, `${judgement('1', 'c#p1', 'no')}\n${judgement('2', 'c#p2', 'partly')}\n`);
        expect((await latest()).sourceAudit).toEqual({
          wrong: 2,
          judged: 2,
          stale: 0,
          cited: { yes: 0, partly: 1, no: 1 },
          labelled: { yes: 2, partly: 0, no: 0 },
          given: 4,
          falseAnswers: 1,
          wrongSourceNotAnswering: 1,
          notAnswering: 2,
          partly: 1,
        });
        expect(lines).toEqual([]);
        await writeFile(judgementsPath, `${judgement('1', 'c#p1', 'no')}\n${judgement('2', 'c#p2', 'perhaps')}\n`);
        const broken = await latest();
        expect(broken).not.toHaveProperty('sourceAudit');
        expect(broken.questions).toHaveLength(5);
        expect(lines).toHaveLength(1);
        expect(lines[0]).toContain(`${judgementsPath}:2`);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    });

    it('GET /v1/eval/latest: 404 with how to produce one when there is none', async () => {
      const none = createApp(appDepsOf(agent, { latestEvaluation: async () => null }));
      const res = await none.request('/v1/eval/latest', { headers: AUTH });
      expect(res.status).toBe(404);
      const error = ((await res.json()) as { error: { code: string; message: string } }).error;
      expect(error.code).toBe('not_found');
      expect(error.message).toContain('npm run eval:report');
    });
  });

  describe('/healthz and /metrics', () => {
    it('/healthz reports every part', async () => {
      const health = (await (await app.request('/healthz')).json()) as { status: string; parts: Record<string, { status: string; detail: string }> };
      expect(health.status).toBe('ok');
      expect(Object.keys(health.parts)).toEqual(['database', 'limiter', 'embedder', 'vectorSearch', 'providers', 'spendLedger']);
      expect(health.parts.vectorSearch).toEqual({ status: 'ok', detail: 'pgvector' });
      expect(health.parts.database).toEqual({ status: 'ok', detail: 'pglite' });
      expect(health.parts.spendLedger?.status).toBe('ok');
    });

    it('/healthz says when the spend ledger is unreachable or today is spent: every priced call is refused then (S-139)', async () => {
      const ledger = (usage: () => Promise<{ day: string; spentUsd: number; reservedUsd: number; ceilingUsd: number }>) => ({
        ceilingUsd: 5,
        description: 'a test ledger',
        reserve: async () => null,
        settle: async () => {},
        usage,
      });
      const healthOf = async (spendLedger: ReturnType<typeof ledger>) => {
        const agent = await agentWith({ spendLedger });
        return (await (await createApp(appDepsOf(agent)).request('/healthz')).json()) as {
          status: string;
          parts: Record<string, { status: string; detail: string }>;
        };
      };
      const down = await healthOf(ledger(() => Promise.reject(new Error('ECONNREFUSED 10.0.0.7:6379'))));
      expect(down.status).toBe('degraded');
      expect(down.parts.spendLedger).toEqual({ status: 'degraded', detail: 'a test ledger: unreachable — priced model calls are not made until it is back' });
      const spent = await healthOf(ledger(async () => ({ day: '2026-12-05', spentUsd: 4.5, reservedUsd: 0.5, ceilingUsd: 5 })));
      expect(spent.parts.spendLedger?.detail).toMatch(/today's ceiling is reached/);
      const fine = await healthOf(ledger(async () => ({ day: '2026-12-05', spentUsd: 1, reservedUsd: 0, ceilingUsd: 5 })));
      expect(fine.parts.spendLedger).toEqual({ status: 'ok', detail: 'a test ledger' });
      // S-144: another replica's lower ceiling applies today; this one, set to 5, says so.
      const lower = await healthOf(ledger(async () => ({ day: '2026-12-05', spentUsd: 1, reservedUsd: 0, ceilingUsd: 2 })));
      expect(lower.parts.spendLedger).toEqual({
        status: 'ok',
        detail: "a test ledger: another replica's lower DAILY_SPEND_CEILING_USD holds today (this one is set higher)",
      });
    });

    it('/metrics is Prometheus text: runs by verdict and terminal, node histograms that add up, failovers, cache, spend', async () => {
      const res = await app.request('/metrics');
      expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
      const text = await res.text();
      const samples = parseExposition(text); // throws on a line that is not exposition format
      expect(sampleOf(samples, 'sandscope_runs_total', { verdict: 'answered', terminal: 'emit' })?.value).toBeGreaterThan(0);
      expect(sampleOf(samples, 'sandscope_runs_total', { verdict: 'refused', terminal: 'refuse' })?.value).toBeGreaterThan(0);
      expect(text).toContain('# TYPE sandscope_node_duration_seconds histogram');
      const count = sampleOf(samples, 'sandscope_node_duration_seconds_count', { node: 'retrieve' })?.value ?? 0;
      const inf = sampleOf(samples, 'sandscope_node_duration_seconds_bucket', { node: 'retrieve', le: '+Inf' })?.value;
      expect(count).toBeGreaterThan(0);
      expect(inf).toBe(count);
      for (const name of ['sandscope_provider_failovers_total', 'sandscope_cache_hits_total', 'sandscope_spend_usd_total'])
        expect(text).toContain(`# TYPE ${name} counter`);
      expect(sampleOf(samples, 'sandscope_provider_events_total', { provider: 'offline', kind: 'served' })?.value).toBeGreaterThan(0);
      expect(sampleOf(samples, 'process_resident_memory_bytes')?.value).toBeGreaterThan(0);
    });
  });

  it('an unexpected error is 500 internal with the remedy only — no message, no stack', async () => {
    const broken = createApp(
      appDepsOf(agent, {
        reader: {
          list: async () => {
            throw new Error('boom in /srv/secret/path.ts');
          },
        } as unknown as AppDeps['reader'],
        log: () => {},
      }),
    );
    const res = await broken.request('/v1/runs', { headers: AUTH });
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ error: { code: 'internal', message: API_ERRORS.internal.remedy } });
  });
});

describe('limits (T-1): exact status and body (D-013)', () => {
  let agent: AgentService;
  beforeAll(async () => {
    agent = await agentWith();
  }, 120_000);

  it('429 rate_limited with Retry-After once a client is over its window; clients are keyed by the first X-Forwarded-For hop', async () => {
    const limiter = new InProcessLimiter({ windowMs: 60_000, maxRequests: 1, dailyTokenCeiling: 1_000_000 });
    const app = createApp(appDepsOf(agent, { limiter }));
    await postRun(app, { question: UNANSWERABLE }, { 'x-forwarded-for': '203.0.113.7, 10.0.0.1' });
    const refused = await app.request('/v1/runs', {
      method: 'POST',
      headers: { ...AUTH, 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.7' },
      body: JSON.stringify({ question: UNANSWERABLE }),
    });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ error: { code: 'rate_limited', message: LIMIT_ERROR_REMEDIES.rate_limited } });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(59);
    // Another client is not affected.
    await postRun(app, { question: UNANSWERABLE }, { 'x-forwarded-for': '198.51.100.2' });
    // The approve route is limited too.
    const approve = await app.request('/v1/runs/00000000-0000-4000-8000-000000000000/approve', {
      method: 'POST',
      headers: { ...AUTH, 'x-forwarded-for': '203.0.113.7' },
    });
    expect(approve.status).toBe(429);
  });

  it("a run's tokens are charged to the client's daily ceiling; the next request is refused daily_tokens_exhausted", async () => {
    const limiter = new InProcessLimiter({ windowMs: 60_000, maxRequests: 100, dailyTokenCeiling: 10 });
    const app = createApp(appDepsOf(agent, { limiter }));
    const { result } = await postRun(app, { question: ANSWERABLE }, { 'x-forwarded-for': '192.0.2.10' });
    expect(result.attempts.reduce((n, a) => n + a.tokensIn + a.tokensOut, 0)).toBeGreaterThan(10);
    const refused = await app.request('/v1/runs', {
      method: 'POST',
      headers: { ...AUTH, 'x-forwarded-for': '192.0.2.10' },
      body: JSON.stringify({ question: ANSWERABLE }),
    });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ error: { code: 'daily_tokens_exhausted', message: LIMIT_ERROR_REMEDIES.daily_tokens_exhausted } });
  });

  it('503 limiter_unavailable when the limiter store is unreachable — fail closed, no run starts', async () => {
    const down: RateLimiter = {
      admit: async (): Promise<Admission> => {
        throw new LimiterUnavailableError('redis down');
      },
      chargeTokens: async (): Promise<Admission> => {
        throw new LimiterUnavailableError('redis down');
      },
      settleTokens: async (): Promise<Admission> => {
        throw new LimiterUnavailableError('redis down');
      },
      close: async () => {},
    };
    const app = createApp(appDepsOf(agent, { limiter: down }));
    const before = (await agent.reader.list(1, 1)).total;
    for (const [method, path] of [
      ['POST', '/v1/runs'],
      ['POST', '/v1/runs/00000000-0000-4000-8000-000000000000/approve'],
    ] as const) {
      const res = await app.request(path, { method, headers: { ...AUTH, 'content-type': 'application/json' }, body: JSON.stringify({ question: ANSWERABLE }) });
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ error: { code: 'limiter_unavailable', message: LIMIT_ERROR_REMEDIES.limiter_unavailable } });
    }
    expect((await agent.reader.list(1, 1)).total).toBe(before);
  });
});

describe('failProviders is scoped to its run (T-6)', () => {
  it('two concurrent runs: A fails groq and is served by gemini; B, at the same time, is served by groq', async () => {
    const groq = await startStubOpenAIServer();
    const gemini = await startStubOpenAIServer();
    stubs.push(groq, gemini);
    const http = (name: 'groq' | 'gemini', stub: StubOpenAIServer): RouterCandidate => ({
      name,
      model: createHttpModel(
        { kind: 'http', name, baseURL: stub.baseURL, model: `${name}-stub`, apiKey: 'stub-key', pricing: perMillionTokens(1, 1) },
        { fetch, timeoutMs: 5_000 },
      ),
      pricing: perMillionTokens(1, 1),
    });
    const candidates = [
      http('groq', groq),
      http('gemini', gemini),
      { name: 'offline', model: new OfflineExtractiveModel(), pricing: OfflineExtractiveModel.pricing },
    ];
    const agent = await agentWith({ candidates, cacheStore: new NoCacheStore() });
    const chunk = agent.kb.chunk(POOL_CHUNK)!;
    const sentence = chunk.text.slice(0, chunk.text.indexOf('. ') + 1);
    const draft = JSON.stringify({ claims: [{ text: sentence, citations: [POOL_CHUNK] }] });
    for (const stub of [groq, gemini]) stub.script({ kind: 'reply', text: draft }, { kind: 'reply', text: draft });
    const app = createApp(appDepsOf(agent));

    const [a, b] = await Promise.all([
      postRun(app, { question: ANSWERABLE, failProviders: ['groq'] }, { 'x-forwarded-for': '192.0.2.1' }),
      postRun(app, { question: ANSWERABLE }, { 'x-forwarded-for': '192.0.2.2' }),
    ]);
    const kinds = (r: RunCall) => r.result.providers.map((p) => `${p.provider}:${p.kind}`);
    expect(kinds(a)).toEqual(['groq:injected_failure', 'gemini:served']);
    expect(kinds(b)).toEqual(['groq:served']);
    expect(a.result.terminal).toBe('emit');
    expect(b.result.terminal).toBe('emit');
    expect(groq.requests).toHaveLength(1);
    expect(gemini.requests).toHaveLength(1);
    // An injected failure never reaches the process-wide cooldowns.
    expect(agent.providerHealth.isCoolingDown('groq')).toBe(false);
    // The stored provider events say the same.
    const stored = (await (await app.request(`/v1/runs/${a.result.runId}`, { headers: AUTH })).json()) as { providerEvents: ProviderEventView[] };
    expect(stored.providerEvents.map((p) => `${p.provider}:${p.kind}`)).toEqual(['groq:injected_failure', 'gemini:served']);
    expect(stored.providerEvents[1]).toMatchObject({ tokens: 120 });
  });
});

describe('the span exporter (T-16)', () => {
  it('drops an attribute that is not on the allowlist before it reaches the span table or the stream', async () => {
    const secret = 'sk-live-0123456789SECRET';
    const agent = await agentWith({
      executor: (orchestrator) => ({
        run: (input) =>
          orchestrator.run({
            ...input,
            onEvent: (event) => {
              const leaky =
                event.type === 'node' && event.node === 'classify' && event.kind === 'end'
                  ? { ...event, data: { ...event.data, apiKey: secret, query: `${input.question} ${secret}` } }
                  : event;
              input.onEvent?.(leaky);
            },
          }),
      }),
    });
    const app = createApp(appDepsOf(agent));
    const res = await app.request('/v1/runs', {
      method: 'POST',
      headers: { ...AUTH, 'content-type': 'application/json' },
      body: JSON.stringify({ question: ANSWERABLE }),
    });
    const text = await res.text();
    expect(text).not.toContain(secret);
    const result = parseSse(text).at(-1)!.data as RunResultView;
    const rows = await store.db.query<{ node: string; kind: string; attributes: Record<string, unknown> }>(
      'select node, kind, attributes from span where run_id = $1 order by seq',
      [result.runId],
    );
    const classifyEnd = rows.find((r) => r.node === 'classify' && r.kind === 'end');
    expect(classifyEnd?.attributes).toEqual({ workload: 'triage', entities: ['orders-db'], services: ['orders-db'] });
    expect(JSON.stringify(rows)).not.toContain(secret);
    const stored = await store.db.query<{ result: unknown }>('select result from run where id = $1', [result.runId]);
    expect(JSON.stringify(stored)).not.toContain(secret);
  });
});

describe('a run that fails after the stream opened', () => {
  it('streams what was recorded, then `event: error` internal (no message, no stack); the run is finished as failed', async () => {
    const agent = await agentWith({
      executor: (orchestrator) => ({
        run: (input) =>
          orchestrator
            .run({
              ...input,
              onEvent: (event) => {
                input.onEvent?.(event);
                if (event.type === 'node' && event.node === 'retrieve' && event.kind === 'end') throw new Error('observer bug');
              },
            })
            .then(() => {
              throw new Error('a bug in /srv/agent/graph.ts');
            }),
      }),
    });
    const app = createApp(appDepsOf(agent, { log: () => {} }));
    const res = await app.request('/v1/runs', {
      method: 'POST',
      headers: { ...AUTH, 'content-type': 'application/json' },
      body: JSON.stringify({ question: ANSWERABLE }),
    });
    expect(res.status).toBe(200);
    const events = parseSse(await res.text());
    expect(events.at(-1)).toEqual({ event: 'error', data: { error: { code: 'internal', message: API_ERRORS.internal.remedy } } });
    const runId = (events[0]!.data as NodeEventView).runId;
    const detail = (await (await app.request(`/v1/runs/${runId}`, { headers: AUTH })).json()) as {
      run: { status: string; error: string };
      spans: NodeEventView[];
    };
    expect(detail.run.status).toBe('failed');
    expect(detail.run.error).toContain('a bug in /srv/agent/graph.ts');
    expect(detail.spans).toEqual(nodeEvents(events));
    expect(detail.spans.length).toBeGreaterThan(4);
  });
});
