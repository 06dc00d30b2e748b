import { judgeByModel, KnowledgeBase, type ModelJudgementInput, shippedAnswerabilityModel } from '@sandscope/engine';
import { beforeAll, describe, expect, it } from 'vitest';
import { measureAll } from './measure.ts';
import { evaluateModelAdjudicated } from './model-adjudicated.ts';
import { readRepoCorpus } from './test-corpus.ts';

/*
 * A deferred question whose every retrieved passage fails a check has nothing to show a model: it is refused as
 * offline without a call, and counted as such — not as a provider that gave no judgement (the review of c269077).
 */
describe('evaluateModelAdjudicated', () => {
  const shipped = shippedAnswerabilityModel();
  // Adjudicated bands opened to 0..1: every question is deferred, so this is about the counting, not the bands.
  const model = { ...shipped, adjudicatedBands: { insufficientBelow: 0, sufficientAbove: 1 } };
  let kb: KnowledgeBase;
  beforeAll(async () => {
    const corpus = readRepoCorpus();
    kb = await KnowledgeBase.build({ documents: corpus.documents, estate: corpus.estate, model });
  });

  it('counts a question with no passage to show apart from one a model was asked about, and asks no model about it', async () => {
    const measured = await measureAll(kb, [
      // catalog-api has no connection pool ceiling in this library: every passage fails the entity or value check.
      { id: 'nothing-to-show', question: 'What is the connection pool ceiling for catalog-api?', label: 'unanswerable', mechanism: 'wrong-entity' },
    ]);
    const calls: unknown[] = [];
    const refusing = {
      doGenerate: (options: unknown) => (calls.push(options), Promise.reject(new Error('no provider'))),
    } as unknown as ModelJudgementInput['model'];
    const report = await evaluateModelAdjudicated(measured, model, (m, decision) =>
      judgeByModel({
        question: m.question.question,
        features: m.features,
        probabilities: decision.assessment.probabilities,
        offline: decision.adjudication!,
        model: refusing,
        decideOffline: (f) => kb.decide(f),
      }),
    );
    expect(calls).toHaveLength(0);
    expect(report.modelAdjudication).toMatchObject({ deferredUnanswerable: 1, nothingToShow: 1, unavailable: 0, judgedBy: {} });
    expect(report.questions[0]!.verdict).toBe('refused');
  });
});
