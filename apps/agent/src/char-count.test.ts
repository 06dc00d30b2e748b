import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { charCount } from './char-count.ts';
import { MAX_QUESTION_CHARS, questionFrom } from './cli/args.ts';
import { readQuestionSet } from './cli/eval-support.ts';
import { captureOutput } from './cli/testing/capture-output.ts';
import { parseRunRequest } from './http/run-request.ts';

/*
 * S-288 (a black-box audit of the feedback loop): POST /v1/runs took a question of 1,000 emoji — 1,000 characters, as
 * docs/API.md counts them — and the run could be marked and exported, but `eval --questions` and `calibrate` reading
 * the export, and `ask`, refused it as "the question is 2000 characters; the limit is 1000": they counted UTF-16
 * units. Every door that holds a question to MAX_QUESTION_CHARS counts characters (code points), with one function.
 */

const io = captureOutput();
const tmp = mkdtempSync(join(tmpdir(), 'sandscope-char-count-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const FITS = '🙂'.repeat(MAX_QUESTION_CHARS);
const OVER = '🙂'.repeat(MAX_QUESTION_CHARS + 1);

describe('MAX_QUESTION_CHARS counts characters (code points) at every door (S-288)', () => {
  it('charCount counts a character beyond the Basic Multilingual Plane once, as Postgres char_length does', () => {
    expect(charCount('🙂')).toBe(1);
    expect(charCount('a𝔸b')).toBe(3);
    expect(charCount('')).toBe(0);
    expect(FITS.length).toBe(2 * MAX_QUESTION_CHARS);
  });

  it('ask takes 1,000 emoji and refuses 1,001, counted as the API counts them', () => {
    expect(questionFrom([FITS])).toBe(FITS);
    expect(() => questionFrom([OVER])).toThrow(
      `the question is ${MAX_QUESTION_CHARS + 1} characters; the limit is ${MAX_QUESTION_CHARS}. Ask one specific question.`,
    );
  });

  it('POST /v1/runs says the same count', () => {
    expect(parseRunRequest({ question: FITS }, MAX_QUESTION_CHARS).question).toBe(FITS);
    expect(() => parseRunRequest({ question: OVER }, MAX_QUESTION_CHARS)).toThrow(
      `The question is ${MAX_QUESTION_CHARS + 1} characters; the limit is ${MAX_QUESTION_CHARS} (MAX_QUESTION_CHARS).`,
    );
  });

  it('eval --questions and calibrate read a file of them by the same rule: 1,000 taken, 1,001 a bad line saying 1001', () => {
    const file = join(tmp, 'emoji.jsonl');
    writeFileSync(
      file,
      `${JSON.stringify({ question: FITS, label: 'unanswerable' })}\n${JSON.stringify({ question: `${OVER} again`, label: 'unanswerable' })}\n`,
    );
    const { questions, skipped } = readQuestionSet(file, true);
    expect(questions.map((q) => q.question)).toEqual([FITS]);
    expect(skipped).toEqual([{ line: 2, reason: `the question is ${MAX_QUESTION_CHARS + 7} characters; the limit is ${MAX_QUESTION_CHARS}` }]);
    expect(io.err).toContain(`line 2: the question is ${MAX_QUESTION_CHARS + 7} characters`);
  });
});
