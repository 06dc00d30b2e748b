import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startStubOpenAIServer, type StubOpenAIServer } from '@sandscope/engine/testing';
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
beforeAll(async () => {
  stub = await startStubOpenAIServer();
  file = join(mkdtempSync(join(tmpdir(), 'adjudicated-')), 'q.jsonl');
  writeFileSync(file, ADJUDICATED_QUESTIONS.map((q) => JSON.stringify(q)).join('\n'));
});
afterAll(() => stub.close());
afterEach(() => vi.unstubAllEnvs());

const judgement = (body: object) => ({ kind: 'json', text: JSON.stringify(body) }) as const;
const judgementRequests = () => stub.requests.filter((r) => JSON.stringify(r.body).includes('<candidates>')).length;
const withProvider = () => {
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
    });
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
