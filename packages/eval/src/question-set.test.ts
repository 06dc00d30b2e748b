import { describe, expect, it } from 'vitest';
import { computeMetrics, type Outcome } from './metrics.ts';
import { parseQuestionsJsonl } from './question-set.ts';

describe('external question files', () => {
  it('reports every malformed line with its number and keeps the good ones', () => {
    const text = [
      '{"question":"What is the pool ceiling for orders-db?","label":"answerable","doc":"a.md"}',
      'not json',
      '{"question":"","label":"answerable"}',
      '{"question":"Who approves?","label":"maybe"}',
      '',
      '{"id":"x","question":"DNS?","label":"unanswerable"}',
      '{"id":"x","question":"DNS again?","label":"unanswerable"}',
    ].join('\n');
    const { questions, bad } = parseQuestionsJsonl(text);
    expect(questions.map((q) => q.id)).toEqual(['q1', 'x']);
    expect(bad.map((b) => b.line)).toEqual([2, 3, 4, 7]);
    expect(bad[0]!.message).toMatch(/not JSON/);
    expect(bad[2]!.message).toMatch(/label/);
    expect(bad[3]!.message).toMatch(/duplicate id "x"/);
  });

  it('refuses a misspelt or miscased field of the format, naming the one meant; keeps the note fields as notes (S-147)', () => {
    const text = [
      '{"question":"q1","label":"answerable","evidense":"the pool ceiling is 100"}',
      '{"question":"q2","label":"answerable","Evidence":"the pool ceiling is 100"}',
      '{"question":"q3","label":"answerable","evidence":"the pool ceiling is 100","why":"stated in the runbook","note":"seen"}',
      '{"question":"q4","label":"answerable","evidence":"the pool ceiling is 100","notes":"seen"}',
    ].join('\n');
    const { questions, bad } = parseQuestionsJsonl(text);
    expect(bad).toEqual([
      { line: 1, message: expect.stringMatching(/^field "evidense" is not one this format reads: did you mean "evidence"\?/) },
      { line: 2, message: expect.stringMatching(/^field "Evidence" is not one this format reads: did you mean "evidence"\?/) },
      { line: 4, message: expect.stringMatching(/^field "notes" is not one this format reads: did you mean "note"\?/) },
    ]);
    expect(questions.map((q) => q.id)).toEqual(['q3']);
  });
});

describe('a question line the format cannot score as written', () => {
  const line = (q: Record<string, unknown>) => JSON.stringify({ label: 'answerable', ...q });

  // S-282: "answer", "source" or "expected_answer" holding the labelled passage were ignored like notes: the question
  // was scored with no labelled passage, and right source, MRR and steps left it out without a word.
  it('refuses a field the format does not read, saying where a labelled passage goes; keeps note and why', () => {
    const { questions, bad } = parseQuestionsJsonl(
      [
        line({ question: 'q1', answer: 'edge-gateway#rate-limits' }),
        line({ question: 'q2', source: 'edge-gateway#rate-limits' }),
        line({ question: 'q3', evidence: 'edge-gateway#rate-limits', expected_answer: '2000' }),
        line({ question: 'q4', evidence: 'edge-gateway#rate-limits', note: 'from feedback --export', why: 'a reason' }),
      ].join('\n'),
    );
    expect(bad.map((b) => b.line)).toEqual([1, 2, 3]);
    for (const b of bad)
      expect(b.message).toMatch(/^field "(answer|source|expected_answer)" is not one this format reads: the answering passage goes in "evidence"/);
    expect(questions.map((q) => q.question)).toEqual(['q4']);
  });

  // S-283: "Procedure" was not a procedure, and "procedur" nothing at all, and neither was said.
  it('reads an intent in any case, and refuses one it does not know, naming those it does', () => {
    const { questions, bad } = parseQuestionsJsonl(
      [line({ question: 'q1', intent: 'Procedure' }), line({ question: 'q2', intent: ' VALUE ' }), line({ question: 'q3', intent: 'procedur' })].join('\n'),
    );
    expect(questions.map((q) => q.intent)).toEqual(['procedure', 'value']);
    expect(bad).toEqual([
      { line: 3, message: expect.stringMatching(/^intent "procedur" is not one this format reads: it is one of procedure, diagnosis, .*what-to-do/) },
    ]);
  });

  // S-284: the same question twice was scored twice; labelled both ways, the pair made a false answer or refusal by itself.
  it('refuses the same question again (case and spacing aside), and marks one labelled the other way as a contradiction', () => {
    const { questions, bad } = parseQuestionsJsonl(
      [
        line({ id: 'a', question: 'what is the rate limit at the edge?' }),
        line({ id: 'b', question: '  What is the  rate limit at the EDGE? ' }),
        line({ id: 'c', question: 'what is the rate limit at the edge?', label: 'unanswerable' }),
      ].join('\n'),
    );
    expect(questions.map((q) => q.id)).toEqual(['a']);
    expect(bad).toEqual([
      { line: 2, message: expect.stringMatching(/^the same question as line 1 \(case and spacing aside\): scored twice it would count twice/) },
      { line: 3, contradicts: 1, message: expect.stringMatching(/^the same question as line 1 .*labelled unanswerable here and answerable there/) },
    ]);
  });

  // S-285: evidence on an unanswerable question was ignored when it matched a passage, and dropped the question as
  // "not scored" when it did not. Either way it contradicts the label.
  it('refuses evidence or a document on an unanswerable question, whether or not it would match', () => {
    const { questions, bad } = parseQuestionsJsonl(
      [
        line({ question: 'q1', label: 'unanswerable', evidence: 'edge-gateway#certificates' }),
        line({ question: 'q2', label: 'unanswerable', evidence: 'words in no passage' }),
        line({ question: 'q3', label: 'unanswerable', doc: 'edge-gateway.md' }),
        line({ question: 'q4', label: 'unanswerable' }),
      ].join('\n'),
    );
    expect(questions.map((q) => q.question)).toEqual(['q4']);
    expect(bad.map((b) => [b.line, b.message.replace(/:.*/, '')])).toEqual([
      [1, 'labelled unanswerable but names an answering passage in "evidence"'],
      [2, 'labelled unanswerable but names an answering passage in "evidence"'],
      [3, 'labelled unanswerable but names an answering document in "doc"'],
    ]);
  });
});

describe('metrics', () => {
  const o = (label: Outcome['label'], verdict: Outcome['verdict'], band: Outcome['band'], rank: number | null = null): Outcome => ({
    id: Math.random().toString(36),
    mechanism: label === 'answerable' ? 'a' : 'u',
    label,
    verdict,
    band,
    rank,
    hasExpected: label === 'answerable',
    corpus: 'c',
    answerability: null,
    source: label === 'answerable' && verdict !== 'refused' ? 'right' : null,
    stepsCovered: null,
  });
  it('counts partial on an unanswerable question as a false answer, and hand-computed MRR and recall@6', () => {
    const m = computeMetrics([
      o('unanswerable', 'partial', 'ambiguous'),
      o('unanswerable', 'refused', 'insufficient'),
      o('unanswerable', 'refused', 'ambiguous'),
      o('unanswerable', 'answered', 'sufficient'),
      o('answerable', 'refused', 'ambiguous', 2),
      o('answerable', 'answered', 'sufficient', 1),
      o('answerable', 'partial', 'ambiguous', 8),
      o('answerable', 'answered', 'sufficient', null),
    ]);
    expect(m.falseAnswerRate).toBe(2 / 4);
    expect(m.falseRefusalRate).toBe(1 / 4);
    expect(m.deferralRate).toBe(4 / 8);
    expect(m.mrr).toBeCloseTo((1 / 2 + 1 + 1 / 8 + 0) / 4, 10);
    expect(m.recallAt6).toBe(2 / 4);
  });
});
