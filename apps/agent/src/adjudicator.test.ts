import { KnowledgeBase, sentencesOf, shippedAnswerabilityModel } from '@sandscope/engine';
import { startStubOpenAIServer, type StubOpenAIServer } from '@sandscope/engine/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCorpusSource } from './corpus-source.ts';
import { knowledgeBaseOf } from './knowledge-base-of.ts';
import { modelServicesFromEnv, runAgent } from './run-agent.ts';
import { UserError } from './user-error.ts';

/**
 * Issue 9 C: an LLM adjudicator for the ambiguous band, through the router, with
 * `ADJUDICATOR=model` — driven over a real stub provider on 127.0.0.1 configured
 * as an operator would (GROQ_API_KEY, GROQ_BASE_URL). The model's adjudicated
 * bands are opened to 0..1 here so every question is adjudicated: this is about
 * the route and the rules around the judgement, not where the bands lie.
 */

const QUESTION = 'What is the connection pool ceiling for orders-db?';
const POOL = 'architecture-order-path#orders-db-connection-pool-ceiling';

let kb: KnowledgeBase;
let stub: StubOpenAIServer;
beforeAll(async () => {
  const source = loadCorpusSource();
  const shipped = shippedAnswerabilityModel();
  kb = await KnowledgeBase.build({
    documents: source.documents,
    estate: source.estate,
    model: { ...shipped, adjudicatedBands: { insufficientBelow: 0, sufficientAbove: 1 } },
  });
  stub = await startStubOpenAIServer();
});
afterAll(() => stub.close());

const services = () => modelServicesFromEnv({ GROQ_API_KEY: 'test-key', GROQ_BASE_URL: stub.baseURL, ADJUDICATOR: 'model' });
const judgement = (body: object) => ({ kind: 'json', text: JSON.stringify(body) }) as const;
const adjudicateEnd = (r: Awaited<ReturnType<typeof runAgent>>) => r.trace.find((e) => e.type === 'node' && e.node === 'adjudicate' && e.kind === 'end');
/** The shipped model with adjudicated bands that answer everything: every question reaches the sufficient band's reading. */
async function answeringKb() {
  const source = loadCorpusSource();
  return KnowledgeBase.build({
    documents: source.documents,
    estate: source.estate,
    model: { ...shippedAnswerabilityModel(), adjudicatedBands: { insufficientBelow: 0, sufficientAbove: 0 } },
  });
}
const judgementRequests = () => stub.requests.filter((r) => JSON.stringify(r.body).includes('<candidates>'));

describe('the LLM adjudicator (ADJUDICATOR=model)', () => {
  it('lets an answer through flagged partial, from the passage the model names, and never as sufficient', async () => {
    const sentence = sentencesOf(kb.chunk(POOL)!.text)[0]!;
    stub.script(judgement({ answers: true, passage: POOL, reason: 'it states the ceiling' }), {
      kind: 'json',
      text: JSON.stringify({ claims: [{ text: sentence, citations: [POOL] }] }),
    });
    const before = judgementRequests().length;
    const r = await runAgent({ kb, question: QUESTION, services: services() });
    expect(judgementRequests().length).toBe(before + 1);
    expect(r.band).toBe('ambiguous');
    expect(r.verdict).toBe('partial');
    expect(r.reasons.join(' ')).toMatch(/Adjudicated partial by groq/);
    expect(r.sources[0]!.chunkId).toBe(POOL);
  });

  it('refuses when the model says no candidate answers', async () => {
    stub.script(judgement({ answers: false, passage: null, reason: 'about another pool' }));
    const r = await runAgent({ kb, question: QUESTION, services: services() });
    expect(r.verdict).toBe('refused');
    expect(r.reasons.join(' ')).toMatch(/Adjudicated refuse by groq: about another pool/);
    // S-108: a reader read the passages, so the refusal claims the library does not answer (the ambiguous band alone is unsure).
    expect(r.refusal).toBe('absent');
    expect(JSON.stringify(adjudicateEnd(r))).toMatch(/"refusal":"absent"/);
  });

  it('decides as offline when the reply is no judgement, or names a passage it was not shown', async () => {
    for (const reply of [
      { kind: 'json', text: 'Sure! The pool looks fine.' } as const,
      judgement({ answers: true, passage: 'not-shown#x', reason: 'made up' }),
    ]) {
      stub.script(reply, { kind: 'json', text: '{"claims":[]}' });
      const r = await runAgent({ kb, question: QUESTION, services: services() });
      expect(JSON.stringify(adjudicateEnd(r))).toMatch(/No model judged this/);
      const offline = await kb.examine(QUESTION);
      expect(r.verdict === 'refused').toBe(offline.verdict === 'refused');
    }
  });

  it('asks the model every time: a judgement is never served from the cache', async () => {
    // Each run: the gate's passages, then (refused there) the search's next ones (S-097).
    const no = judgement({ answers: false, passage: null, reason: 'no' });
    stub.script(no, no, no, no);
    const s = services();
    const before = judgementRequests().length;
    await runAgent({ kb, question: QUESTION, services: s });
    await runAgent({ kb, question: QUESTION, services: s });
    expect(judgementRequests().length).toBe(before + 4);
  });

  // S-097: nearly all the reader's refusals of answerable questions were of questions whose labelled passage it was
  // never shown. Before it refuses, it reads the search's next passages, and answers partial from one it names there.
  it("reads the search's next passages before it refuses, and answers partial from one that answers", async () => {
    const gate = (await kb.retrieve(QUESTION)).results.map((r) => r.chunk.id);
    const next = (await kb.retrieve(QUESTION, 2 * gate.length)).results.map((r) => r.chunk.id).slice(gate.length);
    expect(next.length).toBeGreaterThan(0);
    const deep = next[0]!;
    const sentence = sentencesOf(kb.chunk(deep)!.text)[0]!;
    stub.script(judgement({ answers: false, passage: null, reason: 'not in these' }), judgement({ answers: true, passage: deep, reason: 'this one says it' }), {
      kind: 'json',
      text: JSON.stringify({ claims: [{ text: sentence, citations: [deep] }] }),
    });
    const before = judgementRequests().length;
    const r = await runAgent({ kb, question: QUESTION, services: services() });
    const asked = judgementRequests().slice(before);
    expect(asked).toHaveLength(2);
    const shown = (req: (typeof asked)[number]) => [...JSON.stringify(req.body).matchAll(/candidate id=\\"([^\\"]+)\\"/g)].map((x) => x[1]);
    expect(shown(asked[0]!).sort()).toEqual([...gate].sort());
    expect(shown(asked[1]!)).toEqual(next);
    expect(r.verdict).toBe('partial');
    expect(r.reasons.join(' ')).toMatch(/none of the passages the gate read answers; .* further down the search, does — this one says it/);
    expect(r.sources[0]!.chunkId).toBe(deep);
  });

  // S-096: with a reader, an answer of the sufficient band is read before it is given; offline, nothing is asked.
  it('has the reader read an answer of the sufficient band first: withheld when it finds none, given as it was when it names one', async () => {
    const answering = await answeringKb();
    stub.script(judgement({ answers: false, passage: null, reason: 'about another pool' }));
    const withheld = await runAgent({ kb: answering, question: QUESTION, services: services() });
    expect(withheld.band).toBe('sufficient');
    expect(withheld.verdict).toBe('refused');
    expect(withheld.reasons.join(' ')).toMatch(/Answer withheld: groq read the passages and found none answers — about another pool/);
    expect(withheld.refusal).toBe('absent');

    const sentence = sentencesOf(kb.chunk(POOL)!.text)[0]!;
    stub.script(judgement({ answers: true, passage: POOL, reason: 'it states the ceiling' }), {
      kind: 'json',
      text: JSON.stringify({ claims: [{ text: sentence, citations: [POOL] }] }),
    });
    const stands = await runAgent({ kb: answering, question: QUESTION, services: services() });
    expect(stands.verdict).toBe('answered');
    expect(stands.reasons.join(' ')).toMatch(/Read by groq before answering: it states the ceiling/);

    const before = judgementRequests().length;
    const offline = await runAgent({
      kb: answering,
      question: QUESTION,
      services: modelServicesFromEnv({ GROQ_API_KEY: 'test-key', GROQ_BASE_URL: stub.baseURL }),
    });
    expect(offline.verdict).not.toBe('refused');
    expect(judgementRequests().length).toBe(before);
  });

  // S-180: a reader's refusal said nothing of a slip it left as typed, where an offline refusal offers the word (S-179).
  it('offers the library’s word for a slip on a reader’s refusal, and the question again with it, as offline', async () => {
    // As every entry point builds it: with WordNet, which tells a slip from a word the library lacks.
    const answering = await knowledgeBaseOf(loadCorpusSource(), {
      model: { ...shippedAnswerabilityModel(), adjudicatedBands: { insufficientBelow: 0, sufficientAbove: 0 } },
    });
    stub.script(judgement({ answers: false, passage: null, reason: 'about another alert' }));
    const r = await runAgent({ kb: answering, question: 'the replica lag alret fired, what do i do', services: services() });
    expect(r.band).toBe('sufficient');
    expect(r.verdict).toBe('refused');
    const offer = '“alret” is no word the library uses; it writes “alert”, one edit from it. If that is what you meant, ask again with it.';
    expect(r.reasons.filter((line) => line === offer)).toHaveLength(1);
    expect(r.askAgain).toEqual(['the replica lag alert fired, what do i do']);
    const assessed = r.trace.find((e) => e.type === 'node' && e.node === 'assess_evidence' && e.kind === 'end');
    // The span keeps the slip and the library's word, from which a stored run's page offers the question again.
    expect(assessed && 'data' in assessed ? assessed.data.nearMisses : null).toEqual([{ written: 'alret', at: 16, library: ['alert'] }]);
  });

  // S-098: the reader reads an answer of the sufficient band and names another of the passages the gate read. The
  // answer is given from the passage it names, partial, not from the passages the gate chose.
  it('answers partial from the passage the reader names when the gate answered from another', async () => {
    const answering = await answeringKb();
    const retrieval = await answering.retrieve(QUESTION);
    const gate = answering.decide(answering.features(QUESTION, retrieval), undefined, 'model');
    expect(gate.verdict).toBe('answered');
    const other = retrieval.results.map((r) => r.chunk.id).find((id) => !gate.evidence.some((c) => c.id === id))!;
    expect(other).toBeDefined();
    stub.script(judgement({ answers: true, passage: other, reason: 'this one says it' }), {
      kind: 'json',
      text: JSON.stringify({ claims: [{ text: sentencesOf(answering.chunk(other)!.text)[0]!, citations: [other] }] }),
    });
    const moved = await runAgent({ kb: answering, question: QUESTION, services: services() });
    expect(moved.band).toBe('sufficient');
    expect(moved.verdict).toBe('partial');
    expect(moved.sources[0]!.chunkId).toBe(other);
    expect(moved.reasons.join(' ')).toMatch(/Read by groq before answering: not the passage the gate answered from but .* answers — this one says it/);
  });

  // S-100: with a reader, a refusal below the lower line is read before it is given, as an answer is (S-096). The
  // lower line refused unread what the model rated least likely, and those were about half the reader's false refusals.
  it('has the reader read a refusal below the lower line: partial from the passage it names, refused when it finds none', async () => {
    const source = loadCorpusSource();
    const refusing = await KnowledgeBase.build({
      documents: source.documents,
      estate: source.estate,
      model: { ...shippedAnswerabilityModel(), adjudicatedBands: { insufficientBelow: 1, sufficientAbove: 1 } },
      bands: { insufficientBelow: 1, sufficientAbove: 1 },
    });
    const sentence = sentencesOf(kb.chunk(POOL)!.text)[0]!;
    stub.script(judgement({ answers: true, passage: POOL, reason: 'it states the ceiling' }), {
      kind: 'json',
      text: JSON.stringify({ claims: [{ text: sentence, citations: [POOL] }] }),
    });
    const before = judgementRequests().length;
    const read = await runAgent({ kb: refusing, question: QUESTION, services: services() });
    expect(judgementRequests().length).toBe(before + 1);
    expect(read.band).toBe('insufficient');
    expect(read.verdict).toBe('partial');
    expect(read.sources[0]!.chunkId).toBe(POOL);
    expect(read.reasons[0]).toMatch(/^The model rates no passage likely to answer this\. .* A reader reads the passages before it is refused\./);
    expect(read.reasons.join(' ')).toMatch(/Adjudicated partial by groq: .* answers — it states the ceiling/);

    stub.script(judgement({ answers: false, passage: null, reason: 'about another pool' }), judgement({ answers: false, passage: null, reason: 'nor these' }));
    const refused = await runAgent({ kb: refusing, question: QUESTION, services: services() });
    expect(refused.verdict).toBe('refused');
    expect(refused.reasons.join(' ')).toMatch(/Adjudicated refuse by groq: about another pool/);

    // Offline, the same refusal is given unread, and says no passage answers.
    const asked = judgementRequests().length;
    const offline = await runAgent({
      kb: refusing,
      question: QUESTION,
      services: modelServicesFromEnv({ GROQ_API_KEY: 'test-key', GROQ_BASE_URL: stub.baseURL }),
    });
    expect(offline.verdict).toBe('refused');
    expect(judgementRequests().length).toBe(asked);
  });

  // S-108: a refusal no reader read claims what the offline decision does: here the model is unsure (at or above the
  // adjudicated lower line), so not "the library does not answer this", though a reader was configured.
  it('claims what the offline decision claims when no reader judged the refusal', async () => {
    const source = loadCorpusSource();
    const unsure = await KnowledgeBase.build({
      documents: source.documents,
      estate: source.estate,
      model: { ...shippedAnswerabilityModel(), adjudicatedBands: { insufficientBelow: 0, sufficientAbove: 1 } },
      bands: { insufficientBelow: 1, sufficientAbove: 1 },
    });
    stub.script({ kind: 'json', text: 'Sure! The pool looks fine.' }, { kind: 'json', text: '{"claims":[]}' });
    const r = await runAgent({ kb: unsure, question: QUESTION, services: services() });
    expect(JSON.stringify(adjudicateEnd(r))).toMatch(/No model judged this/);
    expect(r.verdict).toBe('refused');
    expect(r.refusal).toBe('unsure');
  });

  // S-250: a reading the run's budget could not pay for was given unread, and the only trace was "No model read this
  // answer (BudgetExceededError); answered as offline." — a class name, and nothing to do about it.
  it('says in plain words why no model read: the run budget cannot pay for the reading, every provider failed (S-250)', async () => {
    const answering = await answeringKb();
    const before = judgementRequests().length;
    const unpaid = await runAgent({
      kb: answering,
      question: QUESTION,
      // The reading's prompt (some 5,300 tokens) at $5 a million input tokens is more than the run's $0.02.
      services: modelServicesFromEnv({
        GROQ_API_KEY: 'test-key',
        GROQ_BASE_URL: stub.baseURL,
        ADJUDICATOR: 'model',
        GROQ_INPUT_USD_PER_MTOK: '5',
        GROQ_OUTPUT_USD_PER_MTOK: '0.08',
        RUN_BUDGET_USD: '0.02',
      }),
    });
    expect(judgementRequests().length).toBe(before);
    const note = unpaid.reasons.find((line) => line.startsWith('No model read this answer'));
    expect(note).toMatch(
      /^No model read this answer: the run's budget \(RUN_BUDGET_USD \$0\.02\) cannot pay for the reading \(\$0\.0[2-9]\d* at groq's prices\); raise RUN_BUDGET_USD\. /,
    );
    const down = await runAgent({ kb, question: QUESTION, failProviders: ['groq', 'offline'], services: services() });
    expect(JSON.stringify(adjudicateEnd(down))).toMatch(/No model judged this: every provider failed \(groq, offline\); check their keys and status/);
    for (const r of [unpaid, down]) expect(r.reasons.join(' ')).not.toMatch(/[A-Z][a-z]+Error\b/);
  });

  // S-251: a judgement that says a passage answers and names none was reported as naming "a passage it was not shown".
  it('says a reader named no passage when it says one answers and names none (S-251)', async () => {
    stub.script(judgement({ answers: true, passage: null, reason: 'one of them does' }), { kind: 'json', text: '{"claims":[]}' });
    const r = await runAgent({ kb, question: QUESTION, services: services() });
    const end = JSON.stringify(adjudicateEnd(r));
    expect(end).toMatch(/No model judged this: groq said a passage answers but named none\./);
    expect(end).not.toMatch(/not shown/);
  });

  // S-252, S-254: a run with a reader that no model judged is decided under the offline bands. Its refusal advised
  // configuring the reader it had, and its reasons gave the adjudicated bands and the offline bands, both unnamed.
  const unjudgedRefusal = async () => {
    const source = loadCorpusSource();
    const unsure = await KnowledgeBase.build({
      documents: source.documents,
      estate: source.estate,
      model: { ...shippedAnswerabilityModel(), adjudicatedBands: { insufficientBelow: 0.05, sufficientAbove: 1 } },
      bands: { insufficientBelow: 1, sufficientAbove: 1 },
    });
    stub.script({ kind: 'json', text: 'Sure! The pool looks fine.' });
    const r = await runAgent({ kb: unsure, question: QUESTION, services: services() });
    expect(JSON.stringify(adjudicateEnd(r))).toMatch(/No model judged this/);
    expect(r.verdict).toBe('refused');
    return r;
  };

  it('does not advise configuring a reader in a run that has one (S-252)', async () => {
    const r = await unjudgedRefusal();
    expect(r.reasons.join(' ')).toMatch(/Not answered: the model is unsure whether the closest passage, .* Read that passage yourself\./);
    expect(r.reasons.join(' ')).not.toMatch(/ADJUDICATOR=model/);
  });

  it('names which bands each numbers line is read against when a run states both (S-254)', async () => {
    const r = await unjudgedRefusal();
    const numbers = r.reasons.filter((line) => line.startsWith('The numbers: '));
    expect(numbers).toHaveLength(2);
    expect(numbers[0]).toMatch(/^The numbers: answerability \d+% \(adjudicated bands: refuse below 5%, answer from 100%\)/);
    expect(numbers[1]).toMatch(/^The numbers: answerability \d+% \(offline bands: refuse below 100%, answer from 100%; below 5% /);
  });

  // S-253: the reader withheld an answer; the run was headed refused, but its first reason, and the refusal's text,
  // were the gate's "Answered from “orders-db connection pool ceiling” …".
  it("leads a withheld answer's reasons with the reader's, the gate's marked as said before it (S-253)", async () => {
    const answering = await answeringKb();
    stub.script(judgement({ answers: false, passage: null, reason: 'about another pool' }));
    const refused = await runAgent({ kb: answering, question: QUESTION, services: services() });
    expect(refused.verdict).toBe('refused');
    expect(refused.reasons[0]).toBe('Answer withheld: groq read the passages and found none answers — about another pool.');
    expect(refused.answer).toBe('The library does not answer this. Answer withheld: groq read the passages and found none answers — about another pool.');
    expect(refused.reasons).toContainEqual(expect.stringMatching(/^Before the reader: Answered from “orders-db connection pool ceiling” in The Order Path/));
    expect(refused.reasons.filter((line) => line.startsWith('Answered from'))).toEqual([]);

    // Given partial from another passage the gate read (S-098): the first reason names that passage, not the gate's.
    const retrieval = await answering.retrieve(QUESTION);
    const gate = answering.decide(answering.features(QUESTION, retrieval), undefined, 'model');
    const other = retrieval.results.map((r) => r.chunk.id).find((id) => !gate.evidence.some((c) => c.id === id))!;
    stub.script(judgement({ answers: true, passage: other, reason: 'this one says it' }), {
      kind: 'json',
      text: JSON.stringify({ claims: [{ text: sentencesOf(answering.chunk(other)!.text)[0]!, citations: [other] }] }),
    });
    const moved = await runAgent({ kb: answering, question: QUESTION, services: services() });
    expect(moved.verdict).toBe('partial');
    expect(moved.reasons[0]).toMatch(/^Read by groq before answering: not the passage the gate answered from but /);
    expect(moved.reasons.filter((line) => line.startsWith('Answered from'))).toEqual([]);
  });

  it('is offline unless asked for, and a bad ADJUDICATOR says what to set', () => {
    expect(modelServicesFromEnv({}).adjudication).toBe('offline');
    expect(() => modelServicesFromEnv({ ADJUDICATOR: 'gpt' })).toThrow(UserError);
    expect(() => modelServicesFromEnv({ ADJUDICATOR: 'gpt' })).toThrow(/ADJUDICATOR must be offline or model/);
  });
});
