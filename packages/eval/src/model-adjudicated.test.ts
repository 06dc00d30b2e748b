import {
  adjudicationOffline,
  confirmByModel,
  decideAnswerability,
  judgeByModel,
  KnowledgeBase,
  type ModelConfirmation,
  type ModelJudgementInput,
  passes,
  shippedAnswerabilityModel,
} from '@sandscope/engine';
import { beforeAll, describe, expect, it } from 'vitest';
import { measureAll } from './measure.ts';
import { evaluateModelAdjudicated, type ModelReader } from './model-adjudicated.ts';
import { readRepoCorpus } from './test-corpus.ts';

/*
 * A deferred question whose every retrieved passage fails a check was refused without asking a model ("nothing to
 * show"); since S-076 the model is shown the likeliest passages all the same, and what it says is counted as any
 * judgement is — a provider that gives none is "no usable judgement", decided as offline.
 */
/** A provider's reply carrying `text`, served by the stub. */
const generated = (text: string) => ({
  content: [{ type: 'text', text }],
  finishReason: 'stop',
  usage: { inputTokens: { total: 1 }, outputTokens: { total: 1 } },
  providerMetadata: { sandscope: { servedBy: 'stub' } },
  warnings: [],
});

/** An answerable value question on the bundled corpus, its labelled passage the one that states the ceiling. */
const CEILING = {
  id: 'ceiling',
  question: 'What is the connection pool ceiling for orders-db?',
  label: 'answerable',
  mechanism: 'value-lookup',
  evidence: 'architecture-order-path#orders-db-connection-pool-ceiling',
} as const;

/** No answer of the sufficient band to read in these tests: their bands defer every question. */
const noConfirm = async (): Promise<ModelConfirmation> => ({ withheld: null, note: null, judgedBy: null, shown: [], calls: 0 });

describe('evaluateModelAdjudicated', () => {
  const shipped = shippedAnswerabilityModel();
  // Adjudicated bands opened to 0..1: every question is deferred, so this is about the counting, not the bands.
  const model = { ...shipped, adjudicatedBands: { insufficientBelow: 0, sufficientAbove: 1 } };
  let kb: KnowledgeBase;
  /** A deferred question judged as the graph judges it, by `reader`; with `deeper`, reading the search's next passages too. */
  const judgingWith =
    (reader: ModelJudgementInput['model'], deeper = false): ModelReader['judge'] =>
    (q, decision) =>
      judgeByModel({
        question: q.question.question,
        features: q.features,
        probabilities: decision.assessment.probabilities,
        offline: adjudicationOffline(decision),
        model: reader,
        decideOffline: (f) => kb.decide(f),
        ...(deeper ? { deeper: async () => q.deeper } : {}),
      });
  beforeAll(async () => {
    const corpus = readRepoCorpus();
    kb = await KnowledgeBase.build({ documents: corpus.documents, estate: corpus.estate, model });
  });

  it('shows a model the likeliest passages when every one fails a check, and counts its judgement (S-076)', async () => {
    const measured = await measureAll(kb, [
      // catalog-api has no connection pool ceiling in this library: every passage fails the entity or value check.
      { id: 'every-passage-fails', question: 'What is the connection pool ceiling for catalog-api?', label: 'unanswerable', mechanism: 'wrong-entity' },
    ]);
    const judge = (reader: ModelJudgementInput['model']) =>
      evaluateModelAdjudicated(measured, model, {
        judge: judgingWith(reader),
        confirm: noConfirm,
      });
    expect(measured[0]!.features.passages.every((p) => !passes(p, measured[0]!.features))).toBe(true);
    const calls: unknown[] = [];
    const refusing = {
      doGenerate: (options: unknown) => (calls.push(options), Promise.reject(new Error('no provider'))),
    } as unknown as ModelJudgementInput['model'];
    const report = await judge(refusing);
    expect(calls).toHaveLength(1);
    expect(report.modelAdjudication).toMatchObject({ deferredUnanswerable: 1, nothingToShow: 0, unavailable: 1, judgedBy: {} });
    expect(report.questions[0]!.verdict).toBe('refused');
    // A reader that names the first passage it was shown lets it through — flagged partial, never sufficient — and
    // the evaluation counts it as the false answer it is.
    const naming = {
      doGenerate: async (options: { prompt: unknown }) => {
        const id = /candidate id=\\"([^\\"]+)\\"/.exec(JSON.stringify(options.prompt))![1]!;
        return {
          content: [{ type: 'text', text: JSON.stringify({ answers: true, passage: id, reason: 'it says so' }) }],
          finishReason: 'stop',
          usage: { inputTokens: { total: 1 }, outputTokens: { total: 1 } },
          providerMetadata: { sandscope: { servedBy: 'stub' } },
          warnings: [],
        };
      },
    } as unknown as ModelJudgementInput['model'];
    const through = await judge(naming);
    expect(through.modelAdjudication).toMatchObject({ nothingToShow: 0, unavailable: 0, unanswerableLetThrough: 1 });
    expect(through.questions[0]!.verdict).toBe('partial');
  });
  it("shows a model every passage the gate read, those that pass every check first, the search's first among them (S-086, S-092)", async () => {
    // The search ranks a pricing-cache passage first; it fails a check (no replica count of pricing-cache's), so the
    // passing passages are others'. The reader, briefed on exactly such failures, reads it too, after them.
    const measured = await measureAll(kb, [
      { id: 'first-left-out', question: 'What is the replica count for pricing-cache?', label: 'unanswerable', mechanism: 'wrong-entity' },
    ]);
    const m = measured[0]!;
    const first = m.features.passages[0]!.result.chunk.id;
    expect(passes(m.features.passages[0]!, m.features)).toBe(false);
    const prompts: string[] = [];
    const recording = {
      doGenerate: (options: { prompt: unknown }) => (prompts.push(JSON.stringify(options.prompt)), Promise.reject(new Error('no provider'))),
    } as unknown as ModelJudgementInput['model'];
    await evaluateModelAdjudicated(measured, model, {
      judge: judgingWith(recording),
      confirm: noConfirm,
    });
    expect(prompts).toHaveLength(1);
    const shown = [...prompts[0]!.matchAll(/candidate id=\\"([^\\"]+)\\"/g)].map((x) => x[1]);
    expect(shown).toContain(first);
    // S-092: every passage the gate read, those that pass every check first.
    expect(shown).toHaveLength(m.features.passages.length);
    const passing = m.features.passages.filter((p) => passes(p, m.features)).map((p) => p.result.chunk.id);
    expect(shown.slice(0, passing.length).sort()).toEqual([...passing].sort());
  });

  // Whether the reader's refusals of answerable questions are its own or the candidates': S-086 came from counting
  // them by hand; the count is now a figure of the evaluation.
  it('counts the answerable questions the reader refused without being shown their labelled passage', async () => {
    const gold = 'architecture-order-path#orders-db-connection-pool-ceiling';
    const measured = await measureAll(kb, [
      { id: 'ceiling', question: 'What is the connection pool ceiling for orders-db?', label: 'answerable', mechanism: 'value-lookup', evidence: gold },
    ]);
    expect(measured[0]!.retrieval.results.map((r) => r.chunk.id)).toContain(gold);
    const refusingAfter = (shown: readonly string[]) =>
      evaluateModelAdjudicated(measured, model, {
        judge: async () => ({ adjudication: { decision: 'refuse', carrier: null, reasons: ['no'] }, judgedBy: 'stub', shown, calls: 1 }),
        confirm: noConfirm,
      });
    const other = measured[0]!.retrieval.results.find((r) => r.chunk.id !== gold)!.chunk.id;
    expect((await refusingAfter([other])).modelAdjudication).toMatchObject({ deferredAnswerable: 1, answerableLetThrough: 0, answerableRefusedUnshown: 1 });
    expect((await refusingAfter([other, gold])).modelAdjudication).toMatchObject({ answerableRefusedUnshown: 0 });
    // A question let through is no refusal, whatever it was shown (S-097's count once took it for one).
    const carrier = measured[0]!.retrieval.results.find((r) => r.chunk.id === other)!;
    const through = await evaluateModelAdjudicated(measured, model, {
      judge: async () => ({ adjudication: { decision: 'partial', carrier, reasons: ['yes'] }, judgedBy: 'stub', shown: [other], calls: 1 }),
      confirm: noConfirm,
    });
    expect(through.modelAdjudication).toMatchObject({ answerableLetThrough: 1, answerableRefusedUnshown: 0, answeredDeeper: { answerable: 0 } });
  });

  // S-096: nearly every false answer with a reader was one the sufficient band gave without asking it. Here the
  // bands answer everything that passes, and the reader reads each answer first, with the prompt the ambiguous band
  // sends: what it finds unanswered is withheld, a passage it names that the gate answered from stands as the gate answered
  // it (never partial), another it names is answered from, partial (S-098).
  it('has the reader read each answer of the sufficient band before it is given, and counts what it withheld', async () => {
    const answering = { ...shipped, adjudicatedBands: { insufficientBelow: 0, sufficientAbove: 0 } };
    const measured = await measureAll(kb, [CEILING]);
    const replying = (answers: boolean) =>
      ({
        doGenerate: async (options: { prompt: unknown }) => {
          const id = /candidate id=\\"([^\\"]+)\\"/.exec(JSON.stringify(options.prompt))![1]!;
          const text = JSON.stringify(answers ? { answers, passage: id, reason: 'it states it' } : { answers, passage: null, reason: 'about another pool' });
          return generated(text);
        },
      }) as unknown as ModelJudgementInput['model'];
    const unjudged = async () => {
      throw new Error('nothing here is deferred');
    };
    const evaluated = (reader: ModelJudgementInput['model']) =>
      evaluateModelAdjudicated(measured, answering, {
        judge: unjudged,
        confirm: (m, decision) =>
          confirmByModel({
            question: m.question.question,
            features: m.features,
            probabilities: decision.assessment.probabilities,
            evidence: decision.evidence,
            model: reader,
          }),
      });
    const withheld = await evaluated(replying(false));
    expect(withheld.questions[0]!.verdict).toBe('refused');
    expect(withheld.modelAdjudication.answersRead).toEqual({ answerable: 1, unanswerable: 0, answerableWithheld: 1, unanswerableWithheld: 0, unavailable: 0 });
    const stands = await evaluated(replying(true));
    expect(stands.questions[0]!.verdict).toBe('answered');
    expect(stands.modelAdjudication.answersRead).toMatchObject({ answerable: 1, answerableWithheld: 0 });
    // S-098: a passage it names that the gate read but did not answer from is the one answered from, partial.
    let named = '';
    const namingLast = {
      doGenerate: async (options: { prompt: unknown }) => {
        named = [...JSON.stringify(options.prompt).matchAll(/candidate id=\\"([^\\"]+)\\"/g)].at(-1)![1]!;
        return generated(JSON.stringify({ answers: true, passage: named, reason: 'this one states it' }));
      },
    } as unknown as ModelJudgementInput['model'];
    const gate = decideAnswerability(measured[0]!.features, answering, answering.adjudicatedBands);
    const moved = await evaluated(namingLast);
    expect(gate.evidence.map((c) => c.id)).not.toContain(named);
    expect(moved.questions[0]!.verdict).toBe('partial');
    expect(moved.modelAdjudication.answersRead).toMatchObject({ answerable: 1, answerableWithheld: 0, unavailable: 0 });
    expect(moved.modelAdjudication.answersMoved).toEqual({ answerable: 1, unanswerable: 0 });
    expect(stands.modelAdjudication.answersMoved).toEqual({ answerable: 0, unanswerable: 0 });
    expect(moved.questions[0]!.source).toBe(named === measured[0]!.question.evidence ? 'right' : 'wrong');
    const failing = { doGenerate: () => Promise.reject(new Error('no provider')) } as unknown as ModelJudgementInput['model'];
    const asOffline = await evaluated(failing);
    expect(asOffline.questions[0]!.verdict).toBe('answered');
    expect(asOffline.modelAdjudication.answersRead).toMatchObject({ answerable: 1, unavailable: 1 });
  });

  // S-100: the lower line refused unread what the model rated least likely, about half the reader's false refusals on
  // the record's groups. With a reader those refusals are read before they are given, and counted apart from deferral.
  it('has the reader read a refusal below the lower line before it is given, and counts it apart from the deferred', async () => {
    const refusing = { ...shipped, adjudicatedBands: { insufficientBelow: 1, sufficientAbove: 1 } };
    const measured = await measureAll(kb, [
      CEILING,
      { id: 'absent', question: 'How do I rotate the payroll vendor API key?', label: 'unanswerable', mechanism: 'absent-topic' },
    ]);
    const gold = 'architecture-order-path#orders-db-connection-pool-ceiling';
    const namingGold = {
      doGenerate: async (options: { prompt: unknown }) => {
        const shown = JSON.stringify(options.prompt).includes(`candidate id=\\"${gold}\\"`);
        return generated(
          JSON.stringify(shown ? { answers: true, passage: gold, reason: 'it states it' } : { answers: false, passage: null, reason: 'none does' }),
        );
      },
    } as unknown as ModelJudgementInput['model'];
    const r = await evaluateModelAdjudicated(measured, refusing, { judge: judgingWith(namingGold), confirm: noConfirm });
    expect(measured.map((m) => decideAnswerability(m.features, refusing, refusing.adjudicatedBands).assessment.band)).toEqual(['insufficient', 'insufficient']);
    expect(r.questions.map((q) => q.verdict)).toEqual(['partial', 'refused']);
    expect(r.modelAdjudication.refusalsRead).toEqual({ answerable: 1, unanswerable: 1, answerableLetThrough: 1, unanswerableLetThrough: 0 });
    expect(r.modelAdjudication).toMatchObject({ deferredAnswerable: 0, deferredUnanswerable: 0, answerableLetThrough: 0 });
  });

  // S-097: nearly all the reader's refusals of answerable questions were of questions whose labelled passage it was
  // never shown. Before it refuses, it reads the search's next passages; one it names there answers, partial.
  it("reads the search's next passages before it refuses, deferred or read, and answers partial from one that answers", async () => {
    const question = 'What is the connection pool ceiling for orders-db?';
    const [probe] = await measureAll(kb, [{ id: 'probe', question, label: 'unanswerable', mechanism: 'absent-topic' }]);
    expect(probe!.deeper.length).toBeGreaterThan(0);
    const deep = probe!.deeper[0]!.chunk.id;
    expect(probe!.retrieval.results.map((r) => r.chunk.id)).not.toContain(deep);
    const measured = await measureAll(kb, [{ id: 'deep', question, label: 'answerable', mechanism: 'value-lookup', evidence: deep }]);
    const m = measured[0]!;
    expect(m.deeper.map((r) => r.chunk.id)).toEqual(probe!.deeper.map((r) => r.chunk.id));
    // The reader finds none of the gate's passages answers, and names the first it is shown after them.
    const prompts: string[][] = [];
    const reader = {
      doGenerate: async (options: { prompt: unknown }) => {
        const shown = [...JSON.stringify(options.prompt).matchAll(/candidate id=\\"([^\\"]+)\\"/g)].map((x) => x[1]!);
        prompts.push(shown);
        const text = JSON.stringify(
          prompts.length === 1 ? { answers: false, passage: null, reason: 'not here' } : { answers: true, passage: shown[0], reason: 'it states it' },
        );
        return generated(text);
      },
    } as unknown as ModelJudgementInput['model'];
    const deferred = (deeper: boolean) =>
      evaluateModelAdjudicated(measured, model, {
        judge: judgingWith(reader, deeper),
        confirm: noConfirm,
      });
    prompts.length = 0;
    const shallow = await deferred(false);
    expect(prompts).toHaveLength(1);
    expect(shallow.questions[0]!.verdict).toBe('refused');
    expect(shallow.modelAdjudication).toMatchObject({ answerableLetThrough: 0, answerableRefusedUnshown: 1 });
    // What the reader cost: one prompt, and two when it reads deeper.
    expect(shallow.modelAdjudication.calls).toBe(1);
    prompts.length = 0;
    const read = await deferred(true);
    expect(prompts).toHaveLength(2);
    expect(prompts[0]).toHaveLength(m.features.passages.length);
    expect(prompts[1]).toEqual(m.deeper.map((r) => r.chunk.id));
    expect(read.questions[0]!.verdict).toBe('partial');
    expect(read.questions[0]!.source).toBe('right');
    expect(read.modelAdjudication).toMatchObject({ answerableLetThrough: 1, answeredDeeper: { answerable: 1, unanswerable: 0 }, calls: 2 });
    expect(shallow.modelAdjudication.answeredDeeper).toEqual({ answerable: 0, unanswerable: 0 });
    // An answer of the sufficient band the reader finds unanswered by the gate's passages is not refused when a passage
    // further down answers: it is given partial from that one, and not counted as withheld.
    const answering = { ...shipped, adjudicatedBands: { insufficientBelow: 0, sufficientAbove: 0 } };
    prompts.length = 0;
    const confirmedDeeper = await evaluateModelAdjudicated(measured, answering, {
      judge: async () => {
        throw new Error('nothing here is deferred');
      },
      confirm: (q, decision) =>
        confirmByModel({
          question: q.question.question,
          features: q.features,
          probabilities: decision.assessment.probabilities,
          evidence: decision.evidence,
          model: reader,
          deeper: async () => q.deeper,
        }),
    });
    expect(prompts).toHaveLength(2);
    expect(confirmedDeeper.questions[0]!.verdict).toBe('partial');
    expect(confirmedDeeper.modelAdjudication.answersRead).toMatchObject({ answerable: 1, answerableWithheld: 0 });
    expect(confirmedDeeper.modelAdjudication.answeredDeeper).toEqual({ answerable: 1, unanswerable: 0 });
    expect(confirmedDeeper.modelAdjudication.calls).toBe(2);
  });
});
