import { describe, expect, it } from 'vitest';
import { type FeedbackMarkInput, feedbackToQuestion } from './feedback.ts';
import { parseQuestionsJsonl, toJsonl } from './question-set.ts';

const RUN = '0b9c3f0e-4a8e-4c1e-9d6a-2f1e5b7c8d90';
const mark = (over: Partial<FeedbackMarkInput>): FeedbackMarkInput => ({
  runId: RUN,
  label: 'right',
  note: null,
  question: 'What is the connection pool ceiling for orders-db?',
  verdict: 'answered',
  citedChunkIds: ['architecture-order-path#orders-db-connection-pool-ceiling', 'runbook-pool#ceiling'],
  ...over,
});

describe('feedbackToQuestion: a mark becomes a labelled question', () => {
  it.each([
    // [mark label, run verdict, question label, evidence]
    ['wrong-answer', 'answered', 'unanswerable', undefined],
    ['wrong-answer', 'partial', 'unanswerable', undefined],
    ['wrong-refusal', 'refused', 'answerable', undefined],
    ['right', 'answered', 'answerable', 'architecture-order-path#orders-db-connection-pool-ceiling'],
    ['right', 'partial', 'answerable', 'architecture-order-path#orders-db-connection-pool-ceiling'],
    ['right', 'refused', 'unanswerable', undefined],
  ] as const)('%s on a run that %s → %s, evidence %s', (label, verdict, expected, evidence) => {
    const q = feedbackToQuestion(mark({ label, verdict }));
    expect(q.label).toBe(expected);
    expect(q.mechanism).toBe(`feedback-${label}`);
    expect(q.id).toBe(`feedback-${RUN}`);
    expect(q.question).toBe('What is the connection pool ceiling for orders-db?');
    expect(q.evidence).toBe(evidence);
  });

  it('a right answer that cited nothing names no evidence; the note comes along only when there is one', () => {
    expect(feedbackToQuestion(mark({ citedChunkIds: [] }))).not.toHaveProperty('evidence');
    expect(feedbackToQuestion(mark({}))).not.toHaveProperty('note');
    expect(feedbackToQuestion(mark({ label: 'wrong-answer', note: 'not in the runbook' })).note).toBe('not in the runbook');
  });

  it('writes lines that `eval --questions` reads back unchanged (the note is ignored by the parser)', () => {
    const questions = [
      feedbackToQuestion(mark({ note: 'cites the ceiling' })),
      feedbackToQuestion(mark({ runId: RUN.replace('0b9c', '1b9c'), label: 'wrong-answer', note: 'says "100" — for events-bus' })),
    ];
    const { questions: parsed, bad } = parseQuestionsJsonl(toJsonl(questions));
    expect(bad).toEqual([]);
    expect(parsed).toEqual(questions.map(({ note: _note, ...q }) => q));
    expect(JSON.parse(toJsonl(questions).split('\n')[1]!)).toMatchObject({ note: 'says "100" — for events-bus', label: 'unanswerable' });
  });
});
