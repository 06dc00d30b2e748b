import { type CitedTextFrom, runDetailSchema, runResultSchema } from '@sandscope/api';
import { type CitedTextFrom as StoredCitedTextFrom, startStore, type Store } from '@sandscope/store';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { loadConfig, type ServeConfig } from '../config.ts';
import { type CorpusSource, loadCorpusSource } from '../corpus-source.ts';
import { type AgentService, startAgentService } from '../service/compose.ts';
import { appDepsOf, createApp } from './app.ts';
import { SESSION_COOKIE } from './session.ts';
import { parseSse } from './testing/sse-events.ts';

/**
 * S-257 (a colleague's black-box audit of the replicas, 2026-12-07): replica A on the bundled corpus answered
 * "orders-db accepts at most 100 connections"; replica V1 then started on the same database with a corpus where that
 * passage says 250, and rewrote the passage in the shared table. GET /v1/runs/:id of A's run showed "100" on A and
 * "250" on V1: the citation was resolved against whatever the serving replica (or the table) held now. A record of
 * evidence does not change after the fact — both replicas must show the passage as the run read it.
 */

// The contract's word for where a citation's text came from is the store's.
expectTypeOf<CitedTextFrom>().toEqualTypeOf<StoredCitedTextFrom>();

const TOKEN = 'recorded-citation-token-0123456789abcdef';
const AUTH = { authorization: `Bearer ${TOKEN}` };
const QUESTION = 'What is the connection pool ceiling for orders-db?';
const ASKED = 'at most 100 connections';
const CHANGED = 'at most 250 connections';

let store: Store;
let a: AgentService;
let v1: AgentService;
let appA: ReturnType<typeof createApp>;
let appV1: ReturnType<typeof createApp>;

/** The bundled corpus with the ceiling's passage saying 250: the copy V1 is started on. */
function changedCorpus(bundled: CorpusSource): CorpusSource {
  const documents = bundled.documents.map((d) => (d.text.includes(ASKED) ? { ...d, text: d.text.replaceAll(ASKED, CHANGED) } : d));
  expect(documents.filter((d) => d.text.includes(CHANGED))).toHaveLength(1);
  return { ...bundled, documents };
}

async function ask(app: ReturnType<typeof createApp>, question: string) {
  const res = await app.request('/v1/runs', { method: 'POST', headers: { ...AUTH, 'content-type': 'application/json' }, body: JSON.stringify({ question }) });
  expect(res.status).toBe(200);
  const cookie = new RegExp(`${SESSION_COOKIE}=[^;]+`).exec(res.headers.get('set-cookie') ?? '')![0];
  const last = parseSse(await res.text()).at(-1)!;
  expect(last.event).toBe('result');
  return { result: runResultSchema.parse(last.data), cookie };
}

/** The run as the website reads it: parsed by the shared contract. */
async function readBack(app: ReturnType<typeof createApp>, runId: string, cookie: string) {
  const res = await app.request(`/v1/runs/${runId}`, { headers: { ...AUTH, cookie } });
  expect(res.status).toBe(200);
  return runDetailSchema.parse(await res.json());
}

/** The text of every cited passage that names the ceiling, as the run detail shows it. */
function citedCeilings(detail: Awaited<ReturnType<typeof readBack>>): string[] {
  return [
    ...new Set(
      detail.claims.flatMap((c) => c.citations.filter((x) => /at most \d+ connections/.test(x.text)).map((x) => /at most \d+ connections/.exec(x.text)![0])),
    ),
  ];
}

let bundled: CorpusSource;
let config: ServeConfig;

beforeAll(async () => {
  store = await startStore({ dataDir: 'memory://' });
  const loaded = loadConfig({ AGENT_TOKEN: TOKEN, IP_SALT: 'salt-for-recorded-citation-0123' }, { requireToken: true });
  if (!loaded.ok) throw new Error(loaded.message);
  config = loaded.config;
  bundled = loadCorpusSource(undefined, { warn: () => {} });
  a = await startAgentService({ config, store, corpus: bundled, log: () => {} });
  appA = createApp(appDepsOf(a));
}, 120_000);

afterAll(async () => {
  await v1?.close();
  await a?.close();
  await store?.close();
});

describe('a run read back after another replica wrote a changed corpus (S-257)', () => {
  it('shows the passage as the run read it, on every replica, and says it is the recorded text', async () => {
    // The audit's order: A answers, then V1 starts on the changed copy and rewrites the passage in the shared table.
    const before = await ask(appA, QUESTION);
    v1 = await startAgentService({ config, store, corpus: changedCorpus(bundled), log: () => {} });
    appV1 = createApp(appDepsOf(v1));
    expect(v1.startup.join('\n')).toMatch(/tables: 1 passages written/);
    // And A, still on the bundled corpus, answers again while the table holds V1's text.
    const after = await ask(appA, `${QUESTION} Which clients share it?`);

    for (const { result, cookie } of [before, after]) {
      expect(result.outcome).toBe('answered');
      const read = result.sources.map((s) => s.text).join('\n');
      expect(read).toContain(ASKED);
      expect(read).not.toContain(CHANGED);
      const details = [
        { replica: 'A', detail: await readBack(appA, result.runId, cookie) },
        { replica: 'V1', detail: await readBack(appV1, result.runId, cookie) },
      ];
      for (const { replica, detail } of details) {
        expect({ replica, cites: citedCeilings(detail) }).toEqual({ replica, cites: [ASKED] });
      }
      // The detail's citations are the result's sources, as the run showed them, said to be the recorded text.
      const shown = new Map(result.sources.map((s) => [s.chunkId, s]));
      for (const { replica, detail } of details) {
        for (const citation of detail.claims.flatMap((c) => c.citations)) {
          expect(citation, `run ${result.runId} read on ${replica}`).toEqual({ ...shown.get(citation.chunkId), textFrom: 'record' });
        }
      }
    }
  }, 180_000);

  it("a citation recorded before passages were kept reads its run's stored sources, else the library now, said so", async () => {
    expect(appV1, 'the case above starts V1').toBeDefined();
    const { result, cookie } = await ask(appA, `${QUESTION} Is it raised during incidents?`);
    expect(result.sources.map((s) => s.text).join('\n')).toContain(ASKED);
    // As every citation row was before migration 0028: the chunk id alone.
    await store.db.query('update citation set passage_doc = null, passage_heading = null, passage_text = null where run_id = $1', [result.runId]);
    for (const app of [appA, appV1]) {
      const detail = await readBack(app, result.runId, cookie);
      expect(citedCeilings(detail)).toEqual([ASKED]);
      expect(new Set(detail.claims.flatMap((c) => c.citations.map((x) => x.textFrom)))).toEqual(new Set(['record']));
    }
    // A run whose result kept no sources either: the library as it is now — the same on every replica — and marked.
    await store.db.query(`update run set result = result - 'sources' where id = $1`, [result.runId]);
    for (const app of [appA, appV1]) {
      const detail = await readBack(app, result.runId, cookie);
      expect(citedCeilings(detail)).toEqual([CHANGED]);
      expect(new Set(detail.claims.flatMap((c) => c.citations.map((x) => x.textFrom)))).toEqual(new Set(['library']));
    }
  }, 60_000);
});
