import { describe, expect, it } from 'vitest';
import { type FeedbackMarkInput, feedbackToQuestion } from './feedback.ts';
import { feedbackQuestionSet } from './feedback-set.ts';
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
  const NAMED = 'runbook-pool#ceiling';
  it.each([
    // [mark label, run verdict, passage named, question label, evidence, mechanism]
    ['wrong-answer', 'answered', null, 'unanswerable', undefined, 'feedback-wrong-answer'],
    ['wrong-answer', 'partial', null, 'unanswerable', undefined, 'feedback-wrong-answer'],
    // S-286: an answer from the wrong passage of a question the library answers.
    ['wrong-answer', 'answered', NAMED, 'answerable', NAMED, 'feedback-wrong-source'],
    ['wrong-refusal', 'refused', null, 'answerable', undefined, 'feedback-wrong-refusal'],
    ['wrong-refusal', 'refused', NAMED, 'answerable', NAMED, 'feedback-wrong-refusal'],
    // S-286: the run's own citation is evidence only when the person named it (confirmed).
    ['right', 'answered', null, 'answerable', undefined, 'feedback-right'],
    ['right', 'partial', null, 'answerable', undefined, 'feedback-right'],
    ['right', 'answered', 'runbook-pool#ceiling', 'answerable', 'runbook-pool#ceiling', 'feedback-right'],
    ['right', 'refused', null, 'unanswerable', undefined, 'feedback-right'],
  ] as const)('%s on a run that %s, naming %s → %s, evidence %s', (label, verdict, named, expected, evidence, mechanism) => {
    const q = feedbackToQuestion(mark({ label, verdict, evidence: named }));
    expect(q.label).toBe(expected);
    expect(q.mechanism).toBe(mechanism);
    expect(q.id).toBe(`feedback-${RUN}`);
    expect(q.question).toBe('What is the connection pool ceiling for orders-db?');
    expect(q.evidence).toBe(evidence);
  });

  it("a right answer naming no passage is not labelled with the run's own citation (S-286)", () => {
    // Taken as the evidence, the run's own citation scored right source 100% by construction, even on this answer.
    const q = feedbackToQuestion(mark({ label: 'right', note: 'WRONG SOURCE: cited Failover' }));
    expect(q).toEqual({
      id: `feedback-${RUN}`,
      question: 'What is the connection pool ceiling for orders-db?',
      label: 'answerable',
      mechanism: 'feedback-right',
      note: 'WRONG SOURCE: cited Failover',
    });
  });

  it('a right answer that cited nothing names no evidence; the note comes along only when there is one', () => {
    expect(feedbackToQuestion(mark({ citedChunkIds: [] }))).not.toHaveProperty('evidence');
    expect(feedbackToQuestion(mark({}))).not.toHaveProperty('note');
    expect(feedbackToQuestion(mark({ label: 'wrong-answer', note: 'not in the runbook' })).note).toBe('not in the runbook');
  });

  it('writes lines that `eval --questions` reads back unchanged (the note is ignored by the parser)', () => {
    const questions = [
      feedbackToQuestion(mark({ note: 'cites the ceiling', evidence: 'runbook-pool#ceiling' })),
      feedbackToQuestion(
        mark({ runId: RUN.replace('0b9c', '1b9c'), question: 'What is the events-bus retention?', label: 'wrong-answer', note: 'says "100" — for events-bus' }),
      ),
    ];
    const { questions: parsed, bad } = parseQuestionsJsonl(toJsonl(questions));
    expect(bad).toEqual([]);
    expect(parsed).toEqual(questions.map(({ note: _note, ...q }) => q));
    expect(JSON.parse(toJsonl(questions).split('\n')[1]!)).toMatchObject({ note: 'says "100" — for events-bus', label: 'unanswerable' });
  });
});

describe('feedbackQuestionSet: one question, one label — the newest mark kept (S-287)', () => {
  const at = (minute: number) => `2026-12-08T01:${String(minute).padStart(2, '0')}:00.000Z`;
  const run = (n: number) => RUN.replace('0b9c', `${n}b9c`.slice(0, 4));

  it('two runs of one question marked right and wrong-answer: the newest kept, the other listed as a conflict', () => {
    const marks = [
      mark({ runId: run(1), label: 'right', question: 'ledger-db data volume is full, what is the procedure?', createdAt: at(1) }),
      mark({ runId: run(2), label: 'wrong-answer', question: 'Ledger-db data volume is full, what is the procedure? ', createdAt: at(2) }),
      mark({ runId: run(3), label: 'right', question: 'what is the pool ceiling?', createdAt: at(3) }),
    ];
    const { questions, leftOut } = feedbackQuestionSet(marks);
    // Newest first, whatever order they came in; the older mark of the question is not in the set.
    expect(questions.map((q) => [q.id, q.label])).toEqual([
      [`feedback-${run(3)}`, 'answerable'],
      [`feedback-${run(2)}`, 'unanswerable'],
    ]);
    expect(leftOut).toEqual([
      {
        runId: run(1),
        question: 'ledger-db data volume is full, what is the procedure?',
        label: 'right',
        createdAt: at(1),
        kind: 'conflict',
        kept: { runId: run(2), label: 'wrong-answer', createdAt: at(2) },
      },
    ]);
  });

  it('the same label again is a repeat, counted once; another passage named is a conflict', () => {
    const q = 'how do I fail over ledger-db?';
    const { questions, leftOut } = feedbackQuestionSet([
      mark({ runId: run(4), question: q, label: 'wrong-answer', evidence: 'runbook-pool#ceiling', createdAt: at(9) }),
      mark({ runId: run(5), question: q, label: 'wrong-answer', evidence: 'runbook-pool#ceiling', createdAt: at(8) }),
      mark({ runId: run(6), question: q, label: 'wrong-answer', evidence: 'runbook-pool#symptoms', createdAt: at(7) }),
    ]);
    expect(questions).toHaveLength(1);
    expect(leftOut.map((m) => [m.runId, m.kind])).toEqual([
      [run(5), 'repeat'],
      [run(6), 'conflict'],
    ]);
  });

  it('tells questions apart as `eval --questions` does: case, spacing and Unicode forms aside; other words are another question', () => {
    const marks = [
      mark({ runId: run(7), question: '  How do I   drain\tledger-db? ', createdAt: at(3) }),
      mark({ runId: run(8), question: 'how do i drain ledger-db?', createdAt: at(2) }),
      mark({ runId: run(9), question: 'how do I drain ledger-api?', createdAt: at(1) }),
    ];
    const { questions, leftOut } = feedbackQuestionSet(marks);
    expect(questions.map((q) => q.id)).toEqual([`feedback-${run(7)}`, `feedback-${run(9)}`]);
    expect(leftOut.map((m) => [m.runId, m.kind])).toEqual([[run(8), 'repeat']]);
    // What the set writes, `eval --questions` reads whole: no question twice (S-284 refuses one).
    const written = feedbackQuestionSet([...marks, mark({ runId: run(1), question: 'HOW DO I DRAIN LEDGER-DB?', label: 'wrong-answer', createdAt: at(0) })]);
    expect(parseQuestionsJsonl(toJsonl(written.questions)).bad).toEqual([]);
  });
});
