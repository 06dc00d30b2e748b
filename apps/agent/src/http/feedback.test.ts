import { randomUUID } from 'node:crypto';
import { feedbackResponseSchema } from '@sandscope/api';
import { createRun, finishRun, startStore, type Store } from '@sandscope/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { type AgentService, startAgentService } from '../service/compose.ts';
import type { RunResultView } from '../service/run-views.ts';
import { API_ERRORS } from './api-error.ts';
import { appDepsOf, createApp } from './app.ts';
import { parseSse } from './testing/sse-events.ts';

/**
 * `POST /v1/runs/:id/feedback` and `GET /v1/feedback` (issue 9, part D), driven
 * in-process with `app.request()` (STYLE 13) over one embedded PGlite and the
 * offline stack, as app.test.ts drives the rest of the API.
 */

const TOKEN = 'test-token-0123456789abcdef0123456789';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const JSON_AUTH = { ...AUTH, 'content-type': 'application/json' };
const ASKED = 'What is the connection pool ceiling for orders-db?';
const REFUSED = 'How do we rotate TLS certificates?';

let store: Store;
let agent: AgentService;
let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  store = await startStore({ dataDir: 'memory://' });
  const parsed = loadConfig({ AGENT_TOKEN: TOKEN, IP_SALT: 'salt-for-tests-0123456789' }, { requireToken: true });
  if (!parsed.ok) throw new Error(parsed.message);
  agent = await startAgentService({ config: parsed.config, store, log: () => {} });
  app = createApp(appDepsOf(agent));
}, 120_000);

afterAll(async () => {
  await agent?.close();
  await store?.close();
});

async function ask(question: string): Promise<RunResultView> {
  const res = await app.request('/v1/runs', { method: 'POST', headers: JSON_AUTH, body: JSON.stringify({ question }) });
  expect(res.status).toBe(200);
  const last = parseSse(await res.text()).at(-1);
  expect(last?.event).toBe('result');
  return last!.data as RunResultView;
}

const mark = (runId: string, body: unknown, headers: Record<string, string> = JSON_AUTH) =>
  app.request(`/v1/runs/${runId}/feedback`, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });

const invalid = (message: string) => ({ error: { code: 'invalid_request', message: `${message} ${API_ERRORS.invalid_request.remedy}` } });

/** A finished run written straight to the store, so its verdict is the test's choice, not the gate's. */
async function refusedRun(): Promise<string> {
  const run = await createRun(store.db, {
    sessionId: 's-feedback',
    ownerId: store.ownerId,
    workload: 'triage',
    question: REFUSED,
    corpusVersion: agent.kb.version,
  });
  await finishRun(store.db, run.id, { status: 'completed', terminal: 'refuse', verdict: 'refused', band: 'insufficient' });
  return run.id;
}

describe('POST /v1/runs/:id/feedback', () => {
  // A real run through the API (whatever the gate makes of it, it has a verdict and its citations are stored) and a refusal.
  let asked: RunResultView;
  let refusedId: string;
  beforeAll(async () => {
    asked = await ask(ASKED);
    refusedId = await refusedRun();
  });

  it('needs the bearer token, like every /v1 route', async () => {
    expect((await mark(asked.runId, { label: 'right' }, { 'content-type': 'application/json' })).status).toBe(401);
    expect((await app.request('/v1/feedback')).status).toBe(401);
  });

  it('marks a run; marking again replaces the mark; the run and the list read it back', async () => {
    const first = await mark(asked.runId, { label: 'right', note: '  cites the ceiling  ' });
    expect(first.status).toBe(200);
    // `cache`: what a wrong-answer mark did to the cached answer (S-264); null for any other label.
    const firstBody = (await first.json()) as { feedback: { createdAt: string } };
    expect(firstBody).toEqual({
      feedback: { runId: asked.runId, label: 'right', note: 'cites the ceiling', evidence: null, createdAt: expect.any(String) },
      cache: null,
      // S-289: nothing was replaced.
      replaced: null,
    });

    const again = await mark(asked.runId, { label: 'wrong-answer', note: 'the ceiling is for events-bus' });
    expect(again.status).toBe(200);
    const againBody = (await again.json()) as { feedback: unknown; replaced: unknown };
    expect(againBody.feedback).toMatchObject({ label: 'wrong-answer', note: 'the ceiling is for events-bus' });
    // S-289: the mark it replaced, as it was — a colleague's mark was replaced without a word.
    expect(againBody.replaced).toEqual({ label: 'right', note: 'cites the ceiling', evidence: null, createdAt: firstBody.feedback.createdAt });
    expect(feedbackResponseSchema.parse(againBody).replaced).toMatchObject({ label: 'right' });

    const detail = (await (await app.request(`/v1/runs/${asked.runId}`, { headers: AUTH })).json()) as { feedback: unknown };
    expect(detail.feedback).toEqual({ label: 'wrong-answer', note: 'the ceiling is for events-bus', evidence: null, createdAt: expect.any(String) });
    const unmarked = (await (await app.request(`/v1/runs/${refusedId}`, { headers: AUTH })).json()) as { feedback: unknown };
    expect(unmarked.feedback).toBeNull();

    expect((await mark(refusedId, { label: 'wrong-refusal' })).status).toBe(200);
    const list = await app.request('/v1/feedback', { headers: AUTH });
    expect(list.status).toBe(200);
    const { feedback } = (await list.json()) as { feedback: { runId: string; citedChunkIds: string[] }[] };
    // One mark per run, newest first, each joined with what the run asked, said and cited.
    expect(feedback.map((f) => f.runId)).toEqual([refusedId, asked.runId]);
    expect(feedback[0]).toEqual({
      runId: refusedId,
      label: 'wrong-refusal',
      note: null,
      evidence: null,
      createdAt: expect.any(String),
      question: REFUSED,
      verdict: 'refused',
      citedChunkIds: [],
    });
    expect(feedback[1]).toMatchObject({ label: 'wrong-answer', question: ASKED, verdict: asked.verdict });
    expect(feedback[1]!.citedChunkIds).toEqual(asked.claims.flatMap((c) => c.citations).filter((id, i, all) => all.indexOf(id) === i));
  });

  it('404 not_found for a run that does not exist, by uuid or not', async () => {
    for (const id of [randomUUID(), 'not-a-uuid']) {
      const res = await mark(id, { label: 'right' });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: { code: 'not_found', message: `run ${id} does not exist. ${API_ERRORS.not_found.remedy}` } });
    }
  });

  it('400 invalid_request naming what is wrong: the label, the note, an unknown field, the body', async () => {
    const cases: [unknown, ReturnType<typeof invalid>][] = [
      [{ label: 'wrong' }, invalid('label must be one of wrong-answer, wrong-refusal, right.')],
      [{ note: 'no label' }, invalid('label must be one of wrong-answer, wrong-refusal, right.')],
      [{ label: 'right', note: 42 }, invalid('note must be a string.')],
      [{ label: 'right', note: 'x'.repeat(2001) }, invalid('the note is 2001 characters; the limit is 2000.')],
      [{ label: 'right', stars: 5 }, invalid('body has unknown field(s): stars.')],
      ['not json', invalid('The body is not valid JSON.')],
      // Issue 12, defect 5: text Postgres cannot store is refused here, not as a 500 from the insert.
      ['{"label":"right","note":"bad\\u0000byte"}', invalid('note contains a NUL character (U+0000) at character 4; remove it.')],
      [
        '{"label":"right","note":"half \\udbff pair"}',
        invalid(
          'note contains an unpaired surrogate (U+DBFF) at character 6; send valid Unicode text (a \\uD800–\\uDBFF escape must be followed by a \\uDC00–\\uDFFF one).',
        ),
      ],
    ];
    for (const [body, expected] of cases) {
      const res = await mark(asked.runId, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(await res.json()).toEqual(expected);
    }
    // 2000 characters fit, counted as characters (code points), not UTF-16 units.
    expect((await mark(asked.runId, { label: 'wrong-answer', note: '🙂'.repeat(2000) })).status).toBe(200);
  });

  it('400 invalid_request for a label the run contradicts, saying its verdict and the labels that fit; the mark is kept as it was (S-210)', async () => {
    const answered = await createRun(store.db, {
      sessionId: 's-feedback',
      ownerId: store.ownerId,
      workload: 'triage',
      question: ASKED,
      corpusVersion: agent.kb.version,
    });
    await finishRun(store.db, answered.id, { status: 'completed', terminal: 'emit', verdict: 'answered', band: 'sufficient' });
    expect((await mark(answered.id, { label: 'right' })).status).toBe(200);
    const contradicted = await mark(answered.id, { label: 'wrong-refusal', note: 'it refused' });
    expect(contradicted.status).toBe(400);
    expect(await contradicted.json()).toEqual(
      invalid(`run ${answered.id} answered, and wrong-refusal says it refused what the library answers: a run that answered is marked wrong-answer or right.`),
    );
    const refused = await refusedRun();
    const onRefusal = await mark(refused, { label: 'wrong-answer' });
    expect(onRefusal.status).toBe(400);
    expect(await onRefusal.json()).toEqual(
      invalid(`run ${refused} refused, and wrong-answer says it answered what the library cannot answer: a run that refused is marked wrong-refusal or right.`),
    );
    const detail = (await (await app.request(`/v1/runs/${answered.id}`, { headers: AUTH })).json()) as { feedback: { label: string; note: string | null } };
    expect(detail.feedback).toMatchObject({ label: 'right', note: null });
  });

  it('names the passage that answers: by a quotation, matched to its passage; refused when it matches none or several (S-286)', async () => {
    const wrong = await ask(ASKED);
    expect(wrong.verdict).toBe('answered');
    const POOL_STEPS = 'runbook-connection-pool-exhaustion#confirm-the-pool-is-saturated';
    const res = await mark(wrong.runId, { label: 'wrong-answer', note: 'the steps are in the runbook', evidence: '  Connect to the pooler admin console ' });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { feedback: unknown }).feedback).toMatchObject({ label: 'wrong-answer', evidence: POOL_STEPS });
    const detail = (await (await app.request(`/v1/runs/${wrong.runId}`, { headers: AUTH })).json()) as { feedback: unknown };
    expect(detail.feedback).toMatchObject({ label: 'wrong-answer', evidence: POOL_STEPS });
    const list = (await (await app.request('/v1/feedback', { headers: AUTH })).json()) as { feedback: { runId: string; evidence: string | null }[] };
    expect(list.feedback.find((f) => f.runId === wrong.runId)?.evidence).toBe(POOL_STEPS);

    const cases: [unknown, RegExp][] = [
      [
        { label: 'wrong-answer', evidence: 'the pooler admin consoel' },
        new RegExp(
          `^the passage that answers matches no passage: "the pooler admin consoel"; the passage sharing most of its words is ${POOL_STEPS} .*\\. Nothing was marked: name the passage by its id, or quote a sentence only it holds\\. `,
        ),
      ],
      [
        { label: 'wrong-answer', evidence: 'orders-db' },
        /^the passage that answers matches \d+ passages \(.*\); quote more of the answering one\. Nothing was marked/,
      ],
      [
        { label: 'right', evidence: POOL_STEPS },
        new RegExp(`^run ${wrong.runId} cited .*, not ${POOL_STEPS}: right with a passage confirms the one the run answered from\\.`),
      ],
      [{ label: 'right', evidence: 42 }, /^evidence must be a string\./],
    ];
    for (const [body, expected] of cases) {
      const refused = await mark(wrong.runId, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      const { error } = (await refused.json()) as { error: { code: string; message: string } };
      expect(error.code).toBe('invalid_request');
      expect(error.message).toMatch(expected);
    }
    // The mark stands as it was.
    const after = (await (await app.request(`/v1/runs/${wrong.runId}`, { headers: AUTH })).json()) as { feedback: unknown };
    expect(after.feedback).toMatchObject({ label: 'wrong-answer', evidence: POOL_STEPS });
    // right naming the passage the run cited confirms it.
    const cited = wrong.claims[0]!.citations[0]!;
    const confirmed = await mark(wrong.runId, { label: 'right', evidence: cited });
    expect(confirmed.status).toBe(200);
    expect(((await confirmed.json()) as { replaced: unknown }).replaced).toMatchObject({ label: 'wrong-answer', evidence: POOL_STEPS });
  });

  it('400 for a run with no verdict yet: there is nothing to judge', async () => {
    const running = await createRun(store.db, {
      sessionId: 's-feedback',
      ownerId: store.ownerId,
      workload: 'triage',
      question: 'still thinking?',
      corpusVersion: agent.kb.version,
    });
    const res = await mark(running.id, { label: 'right' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual(
      invalid(`run ${running.id} is running and has no verdict: only a run that answered, answered partially or refused can be marked.`),
    );
  });
});

describe('a wrong-answer mark evicts the answer from the semantic cache (S-132)', () => {
  const QUESTION = 'What is the orders-db connection pool ceiling?';

  /** What the run's hypothesise span says of the cache: `hit:exact`, `miss`, … and the entry's key. */
  async function cacheOf(runId: string): Promise<{ cache: unknown; cacheKey: unknown }> {
    const detail = (await (await app.request(`/v1/runs/${runId}`, { headers: AUTH })).json()) as {
      spans: { node: string; kind: string; data: Record<string, unknown> }[];
    };
    const drafted = detail.spans.find((s) => s.node === 'hypothesise' && s.kind === 'end');
    return { cache: drafted?.data['cache'], cacheKey: drafted?.data['cacheKey'] };
  }

  it('served again from the cache before the mark; drafted afresh after it', async () => {
    const first = await ask(QUESTION);
    expect(first.verdict).toBe('answered');
    const again = await ask(QUESTION);
    const served = await cacheOf(again.runId);
    // Exact, or semantic when an earlier test's near-identical question left its entry.
    expect(served.cache).toMatch(/^hit:/);
    expect(served.cacheKey).toEqual((await cacheOf(first.runId)).cacheKey);

    // "right" keeps it; "wrong-answer" on the run that was served it evicts it for everyone.
    expect((await mark(again.runId, { label: 'right' })).status).toBe(200);
    expect((await cacheOf((await ask(QUESTION)).runId)).cache).toBe(served.cache);
    const marked = await mark(again.runId, { label: 'wrong-answer', note: 'the ceiling is for events-bus' });
    expect(marked.status).toBe(200);
    // The cache could be reached, so the answer is out of it, and the response says so (S-264 for the case it could not).
    expect(((await marked.json()) as { cache: unknown }).cache).toEqual({ removed: true, message: 'Its answer is no longer served from the semantic cache.' });
    expect((await cacheOf((await ask(QUESTION)).runId)).cache).toBe('miss');
  });
});
