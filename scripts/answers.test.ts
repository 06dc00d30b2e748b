import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type AnswerRun, answerChange, readAnswerRun } from './answers.ts';

const row = (
  id: string,
  verdict: string,
  answerability: number | null,
  source: 'right' | 'wrong' | null,
  label: 'answerable' | 'unanswerable' = 'answerable',
) => ({
  id,
  label,
  verdict,
  answerability,
  source,
});
const run = (questions: AnswerRun['questions'], procedureAnswers = 0, stepsCoveredRate: number | null = null): AnswerRun => ({
  procedureAnswers,
  stepsCoveredRate,
  questions,
});

describe('eval:answers — what an answer-only change is judged on', () => {
  const before = run([row('a-1', 'answered', 0.9, 'right'), row('a-2', 'answered', 0.88, 'wrong'), row('a-3', 'refused', 0.2, null)], 4, 0.5);

  it('counts no change when only the answers moved, and pools every-step and right-source answers', () => {
    const after = run([row('a-1', 'answered', 0.9, 'right'), row('a-2', 'answered', 0.88, 'right'), row('a-3', 'refused', 0.2, null)], 4, 0.75);
    const r = answerChange([[before, after]]);
    expect(r).toMatchObject({ corpora: 1, questions: 3, changed: 0 });
    expect(r.before).toMatchObject({ procedure: 4, everyStep: 2, sourced: 2, right: 1 });
    expect(r.after).toMatchObject({ procedure: 4, everyStep: 3, sourced: 2, right: 2 });
  });

  it('counts every question whose verdict, rating or id moved, and rows one run has and the other lacks', () => {
    const after = run([
      row('a-1', 'refused', 0.9, null),
      row('a-2', 'answered', 0.87, 'wrong'),
      row('a-4', 'refused', 0.2, null),
      row('a-5', 'refused', 0.1, null),
    ]);
    expect(answerChange([[before, after]]).changed).toBe(4);
  });

  it('counts false answers (a partial one too) and false refusals, for a retrained model judged on the same corpora', () => {
    const b = run([row('u-1', 'refused', 0.2, null, 'unanswerable'), row('u-2', 'partial', 0.5, null, 'unanswerable'), row('a-1', 'refused', 0.3, null)]);
    const c = run([row('u-1', 'answered', 0.9, null, 'unanswerable'), row('u-2', 'refused', 0.1, null, 'unanswerable'), row('a-1', 'answered', 0.9, 'right')]);
    const r = answerChange([[b, c]]);
    expect(r.before).toMatchObject({ unanswerable: 2, falseAnswers: 1, answerable: 1, falseRefusals: 1 });
    expect(r.after).toMatchObject({ unanswerable: 2, falseAnswers: 1, answerable: 1, falseRefusals: 0 });
  });

  it('names a file cut short or written without rows, and how to write it again — never a JSON parser error', () => {
    const dir = mkdtempSync(join(tmpdir(), 'answers-'));
    writeFileSync(join(dir, 'cut.json'), '{"procedureAnswers": 3, "questions": [');
    writeFileSync(join(dir, 'bare.json'), '{"procedureAnswers": 3}');
    expect(() => readAnswerRun(dir, 'cut.json')).toThrow(/cut\.json is not a whole JSON report .*--json --rows/);
    expect(() => readAnswerRun(dir, 'bare.json')).toThrow(/bare\.json has no rows/);
  });
});
