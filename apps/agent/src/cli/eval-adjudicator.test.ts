import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startStubOpenAIServer, type StubOpenAIServer } from '@sandscope/engine/testing';
import { DatabaseSpendLedger, startStore } from '@sandscope/store';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from './main.ts';
import { ADJUDICATED_QUESTIONS } from './testing/adjudicated-questions.ts';
import { captureOutput } from './testing/capture-output.ts';

/*
 * `sandscope eval --questions FILE --adjudicator model` (ADR-0013: the next gain needs a reader, and how well one
 * judges was never measured — no model ran in the evaluation). A real stub provider on 127.0.0.1, configured as an
 * operator would (GROQ_API_KEY, GROQ_BASE_URL), judges the questions the shipped model's adjudicated bands leave to it;
 * the figures count its judgements as the product would act on them.
 */

const io = captureOutput();
const POOL_RUNBOOK = 'runbook-connection-pool-exhaustion#runbook-connection-pool-exhaustion';

let stub: StubOpenAIServer;
let file: string;
let dataDir: string;
beforeAll(async () => {
  stub = await startStubOpenAIServer();
  const dir = mkdtempSync(join(tmpdir(), 'adjudicated-'));
  file = join(dir, 'q.jsonl');
  writeFileSync(file, ADJUDICATED_QUESTIONS.map((q) => JSON.stringify(q)).join('\n'));
  // S-260: the reader's priced calls are booked on the agent's daily ledger, here the embedded database in this folder.
  dataDir = join(dir, 'data');
});
afterAll(() => stub.close());
afterEach(() => vi.unstubAllEnvs());

const judgement = (body: object) => ({ kind: 'json', text: JSON.stringify(body) }) as const;
const judgementRequests = () => stub.requests.filter((r) => JSON.stringify(r.body).includes('<candidates>')).length;
const withProvider = () => {
  vi.stubEnv('SANDSCOPE_DATA_DIR', dataDir);
  vi.stubEnv('GROQ_API_KEY', 'test-key');
  vi.stubEnv('GROQ_BASE_URL', stub.baseURL);
};

interface Report {
  falseAnswerRate: number;
  falseRefusalRate: number;
  deferralRate: number;
  modelAdjudication: {
    deferredAnswerable: number;
    deferredUnanswerable: number;
    judgedBy: Record<string, number>;
    unavailable: number;
    answerableLetThrough: number;
    unanswerableLetThrough: number;
    calls: number;
    budget: { spentUsd: number; refusedByRunBudget: number; refusedByDailyCeiling: number };
  };
  questions: { id: string; band: string; verdict: string; source: string | null }[];
}

describe('sandscope eval --adjudicator model', () => {
  it('sends the model exactly the questions the adjudicated bands defer, and counts its judgements in the figures', async () => {
    withProvider();
    stub.script(
      judgement({ answers: true, passage: POOL_RUNBOOK, reason: 'the runbook for that error' }),
      judgement({ answers: false, passage: null, reason: 'only orders-db has a ceiling here' }),
      // S-097: refused, the reader reads the search's next passages before the refusal stands; none answers either.
      judgement({ answers: false, passage: null, reason: 'nor do these' }),
      // S-096: the answer of the sufficient band is read before it is given; this reading lets it stand.
      judgement({ answers: true, passage: 'architecture-order-path#orders-db-connection-pool-ceiling', reason: 'it states the ceiling' }),
      // S-100: the refusal below the lower line is read before it is given, and read deeper before it stands.
      judgement({ answers: false, passage: null, reason: 'nothing here is about a mainframe' }),
      judgement({ answers: false, passage: null, reason: 'nor here' }),
    );
    const before = judgementRequests();
    expect(await main(['eval', '--questions', file, '--adjudicator', 'model', '--json', '--rows'])).toBe(0);
    const r = JSON.parse(io.out) as Report;
    expect(judgementRequests() - before).toBe(6);
    const row = (id: string) => r.questions.find((q) => q.id === id)!;
    expect(['deferred-answerable', 'deferred-unanswerable', 'answered', 'refused'].map((id) => row(id).band)).toEqual([
      'ambiguous',
      'ambiguous',
      'sufficient',
      'insufficient',
    ]);
    expect(row('deferred-answerable')).toMatchObject({ verdict: 'partial', source: 'right' });
    expect(row('deferred-unanswerable').verdict).toBe('refused');
    expect(row('answered').verdict).toBe('answered');
    expect(r.modelAdjudication).toEqual({
      bands: expect.any(Object),
      deferredAnswerable: 1,
      deferredUnanswerable: 1,
      judgedBy: { groq: 3 },
      answersRead: { answerable: 1, unanswerable: 0, answerableWithheld: 0, unanswerableWithheld: 0, unavailable: 0 },
      unavailable: 0,
      nothingToShow: 0,
      answerableLetThrough: 1,
      unanswerableLetThrough: 0,
      answerableRefusedUnshown: 0,
      answeredDeeper: { answerable: 0, unanswerable: 0 },
      answersMoved: { answerable: 0, unanswerable: 0 },
      refusalsRead: { answerable: 0, unanswerable: 1, answerableLetThrough: 0, unanswerableLetThrough: 0 },
      // Every prompt the stub was sent, counted by the evaluation: what the reader cost.
      calls: 6,
      budget: { refusedByRunBudget: 0, refusedByDailyCeiling: 0, unjudged: 0, unread: 0, spentUsd: expect.any(Number) },
    });
    expect(r.modelAdjudication.budget.spentUsd).toBeGreaterThan(0);
    expect(r).toMatchObject({ falseAnswerRate: 0, falseRefusalRate: 0, deferralRate: 0.5 });
  });

  it('a reply that is no judgement leaves the question to the offline rules, and is counted so', async () => {
    withProvider();
    stub.script({ kind: 'json', text: 'Sure! The pool looks fine.' }, judgement({ answers: false, passage: null, reason: 'no' }));
    expect(await main(['eval', '--questions', file, '--adjudicator', 'model'])).toBe(0);
    // The deferred answerable question, and (S-100) the refusal below the lower line, which found no scripted reply.
    expect(io.out).toMatch(/judged by a model: 1 \(groq 1\); asked but no usable judgement, decided as offline: 2; nothing to show/);
    // Offline, 'checkout is getting ConnectionAcquireTimeout errors' is refused: one of the two answerable questions.
    expect(io.out).toMatch(/false refusals\s+50\.0%/);
    // The third request, the answered question's reading, found no scripted reply: it stands, as offline.
    expect(io.out).toMatch(
      /read before they were given \(S-096\): 1; withheld 0 of 0 unanswerable, 0 of 1 answerable; no usable reading, answered as offline: 1/,
    );
    // S-097: the deferred refusal's deeper read found no scripted reply, so nothing was answered from further down.
    expect(io.out).toMatch(/answered partial from the search's next passages, read before a refusal \(S-097\): 0 answerable, 0 unanswerable/);
    expect(io.out).toMatch(/given partial from another passage the gate read, the one the reader named \(S-098\): 0 answerable, 0 unanswerable/);
    expect(io.out).toMatch(
      /refusals below the lower line, read before they were given \(S-100\): 0 answerable, 1 unanswerable; let through 0 answerable, 0 unanswerable/,
    );
    // What the reader cost: one prompt per question read, and the deferred refusal's deeper read.
    expect(io.out).toMatch(/prompts sent to a model: 5 for 4 questions \(1\.25 each;/);
  });

  // S-261: with RUN_BUDGET_USD=0.001 it printed "prompts sent to a model: 5 for 5 questions" though no request reached
  // the provider, and "decided as offline: 4" without saying that the budget was why.
  it('counts only the prompts a provider was sent, and says how many the budget refused and what they left offline', async () => {
    withProvider();
    vi.stubEnv('GROQ_INPUT_USD_PER_MTOK', '1');
    vi.stubEnv('GROQ_OUTPUT_USD_PER_MTOK', '1');
    vi.stubEnv('RUN_BUDGET_USD', '0.001');
    const before = stub.requests.length;
    expect(await main(['eval', '--questions', file, '--adjudicator', 'model'])).toBe(0);
    expect(stub.requests.length).toBe(before);
    expect(io.out).toMatch(
      /judged by a model: 0; asked but no usable judgement, decided as offline: 3 \(3 of them never sent: the budget refused their prompts\);/,
    );
    expect(io.out).toMatch(/no usable reading, answered as offline: 1 \(1 of them never sent: the budget refused its prompt\)/);
    expect(io.out).toMatch(/prompts sent to a model: 0 for 4 questions \(0\.00 each;/);
    expect(io.out).toMatch(
      /refused by the budget before any provider was sent them: 4 prompts \(4 by RUN_BUDGET_USD, each question's own run; 0 by DAILY_SPEND_CEILING_USD, the deployment's day\)/,
    );
    expect(io.out).toMatch(/spent on model calls: \$0\.000000/);
  });

  // S-260: two evaluations made ten priced calls ($0.07) under DAILY_SPEND_CEILING_USD=0.02, booked nowhere, and
  // printed no spend.
  it('books its priced calls on the daily ceiling the agent books on, and says what it spent', async () => {
    const billing = await startStubOpenAIServer({
      fallback: { kind: 'json', text: '{"answers": false, "passage": null, "reason": "no"}', usage: { promptTokens: 5_000, completionTokens: 100 } },
    });
    const data = mkdtempSync(join(tmpdir(), 'adjudicated-ceiling-'));
    try {
      const env = {
        SANDSCOPE_DATA_DIR: data,
        GROQ_API_KEY: 'test-key',
        GROQ_BASE_URL: billing.baseURL,
        GROQ_INPUT_USD_PER_MTOK: '1',
        GROQ_OUTPUT_USD_PER_MTOK: '1',
        DAILY_SPEND_CEILING_USD: '0.02',
      };
      for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
      const runs: Report['modelAdjudication'][] = [];
      for (let i = 0; i < 2; i++) {
        const from = io.out.length;
        expect(await main(['eval', '--questions', file, '--adjudicator', 'model', '--json'])).toBe(0);
        runs.push((JSON.parse(io.out.slice(from)) as Report).modelAdjudication);
      }
      const [first, second] = runs as [Report['modelAdjudication'], Report['modelAdjudication']];
      // The first spends until the day's ceiling cannot take the next reservation; the second finds it spent.
      expect(first.calls).toBe(billing.requests.length);
      expect(first.budget.spentUsd).toBeGreaterThan(0);
      expect(first.budget.refusedByDailyCeiling).toBeGreaterThan(0);
      expect(second).toMatchObject({ calls: 0, budget: { spentUsd: 0, refusedByRunBudget: 0, refusedByDailyCeiling: expect.any(Number) } });
      expect(second.budget.refusedByDailyCeiling).toBeGreaterThan(0);
      vi.unstubAllEnvs();
      // On the books the agent reads at start-up: what the first evaluation spent, and nothing held.
      const store = await startStore({ dataDir: join(data, 'pglite') });
      try {
        const usage = await new DatabaseSpendLedger(store.db, { ceilingUsd: 0.02 }).usage();
        expect(usage.spentUsd).toBeCloseTo(first.budget.spentUsd, 9);
        expect(usage.reservedUsd).toBe(0);
      } finally {
        await store.close();
      }
      // And the text says what was spent, and where it was booked.
      for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
      expect(await main(['eval', '--questions', file, '--adjudicator', 'model'])).toBe(0);
      expect(io.out).toMatch(/spent on model calls: \$0\.000000, booked against DAILY_SPEND_CEILING_USD: database \(embedded PGlite: this process only\)/);
    } finally {
      await billing.close();
      rmSync(data, { recursive: true, force: true });
    }
  }, 60_000);

  it('stops with one line while a running agent holds the embedded database its spend is booked in', async () => {
    const held = mkdtempSync(join(tmpdir(), 'adjudicated-held-'));
    try {
      writeFileSync(join(held, 'pglite.owner'), String(process.ppid));
      withProvider();
      vi.stubEnv('SANDSCOPE_DATA_DIR', held);
      const before = stub.requests.length;
      expect(await main(['eval', '--questions', file, '--adjudicator', 'model'])).not.toBe(0);
      expect(stub.requests.length).toBe(before);
      expect(io.err).toMatch(
        /^sandscope: the daily spend ceiling \(DAILY_SPEND_CEILING_USD\) is booked in the database at .*, which another process holds \(pid \d+: .*\)\. Priced model calls \(groq\) are booked there before they are made; stop it and run this again\.\n$/,
      );
    } finally {
      rmSync(held, { recursive: true, force: true });
    }
  });

  it('without a provider to judge, or where it cannot score what ships, it says what to do instead of running', async () => {
    vi.stubEnv('GROQ_API_KEY', '');
    expect(await main(['eval', '--questions', file, '--adjudicator', 'model'])).not.toBe(0);
    expect(io.err).toMatch(/--adjudicator model needs a provider to judge: set a provider key/);
    // Said before the corpus is read and every question measured: a missing corpus is not what it reports first.
    io.err = '';
    expect(await main(['eval', '--corpus', join(tmpdir(), 'no-such-corpus'), '--questions', file, '--adjudicator', 'model'])).not.toBe(0);
    expect(io.err).toMatch(/--adjudicator model needs a provider to judge/);
    for (const args of [['--questions', file, '--cv'], ['--questions', file, '--record'], ['--loco'], []]) {
      io.err = '';
      expect(await main(['eval', '--adjudicator', 'model', ...args])).not.toBe(0);
      expect(io.err, args.join(' ')).toMatch(/--adjudicator model scores a question set with what ships/);
    }
    expect(await main(['eval', '--questions', file, '--adjudicator', 'llm'])).not.toBe(0);
    expect(io.err).toMatch(/--adjudicator is offline \(the default\) or model \(got "llm"\)/);
  });
});
