import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from './main.ts';
import { captureOutput } from './testing/capture-output.ts';

/**
 * S-280: `calibrate` recorded what it fitted a corpus's bands on as the path string it was given, and `eval` called
 * its figures in-sample only when the same string came back. A copy of the file, the same questions under another
 * name, or a set sharing some of them was printed as "nothing was tuned on these questions".
 */
const io = captureOutput();
const harbor = resolve(import.meta.dirname, '../../../../eval-corpora/harbor-runbooks');
const tmp = mkdtempSync(join(tmpdir(), 'eval-in-sample-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A team's library (no development corpus by name: the shipped model never trained on it) and its labelled questions. */
const library = join(tmp, 'team-library');
const fitted = join(tmp, 'calibration', 'questions.jsonl');
const lines = () => readFileSync(join(harbor, 'questions.jsonl'), 'utf8').trim().split('\n');
const write = (name: string, rows: readonly string[]) => {
  const path = join(tmp, name);
  writeFileSync(path, `${rows.join('\n')}\n`);
  return path;
};
/** The same question in other words: not one calibrate fitted on. */
const reworded = (line: string) => {
  const q = JSON.parse(line) as { question: string };
  return JSON.stringify({ ...q, question: `quick one: ${q.question}` });
};

type Scored = {
  n: number;
  inSample: boolean;
  bandsFittedOn?: { questionsRecorded: number | null; scored: number; scoredFittedOn: number | null };
  heldOutOfBands?: { n: number; falseAnswerRate: number | null };
};
async function evalOf(questions: string): Promise<{ json: Scored; text: string }> {
  io.out = '';
  expect(await main(['eval', '--corpus', library, '--questions', questions, '--json'])).toBe(0);
  const json = JSON.parse(io.out) as Scored;
  io.out = '';
  expect(await main(['eval', '--corpus', library, '--questions', questions])).toBe(0);
  return { json, text: io.out };
}

describe('eval says which of its questions calibrate fitted the bands on, by their text (S-280)', () => {
  beforeAll(() => {
    cpSync(harbor, library, { recursive: true });
    rmSync(join(library, 'questions.jsonl'));
    mkdirSync(join(tmp, 'calibration'));
    writeFileSync(fitted, `${lines().join('\n')}\n`);
  });

  // The tests after this one score with the bands it writes.
  it('calibrate records the questions it fitted on, as digests of their text', async () => {
    expect(await main(['calibrate', '--corpus', library, '--questions', fitted, '--force'])).toBe(0);
    const thresholds = JSON.parse(readFileSync(join(library, 'thresholds.json'), 'utf8')) as { fittedOnQuestions: string[]; questions: number };
    expect(thresholds.fittedOnQuestions).toHaveLength(16);
    expect(thresholds.fittedOnQuestions.every((d) => /^[0-9a-f]{16}$/.test(d))).toBe(true);
    // A digest, not the team's questions.
    expect(readFileSync(join(library, 'thresholds.json'), 'utf8')).not.toContain('ledger');
  });

  it('a copy of the calibration file, under another name and in other case and spacing, is in-sample', async () => {
    const copy = write(
      'copy.jsonl',
      lines().map((l) => l.replace(/"question":"([^"]*)"/, (_, q: string) => `"question":"  ${q.toUpperCase()} "`)),
    );
    const { json, text } = await evalOf(copy);
    expect(json.inSample).toBe(true);
    expect(json.bandsFittedOn).toMatchObject({ questionsRecorded: 16, scored: 16, scoredFittedOn: 16 });
    expect(text).toMatch(/^IN-SAMPLE: scored with this corpus's own bands \(thresholds\.json\), which calibrate fitted on these very questions/m);
    expect(text).not.toMatch(/nothing was tuned on these questions/);
  });

  it('a set sharing some of them says how many, is not called held out, and scores the rest alone', async () => {
    const all = lines();
    const mixed = write('mixed.jsonl', [...all.slice(0, 6), ...all.slice(6).map(reworded)]);
    const { json, text } = await evalOf(mixed);
    expect(json.inSample).toBe(true);
    expect(json.bandsFittedOn).toMatchObject({ scored: 16, scoredFittedOn: 6 });
    expect(json.heldOutOfBands?.n).toBe(10);
    expect(text).toMatch(/^PARTLY IN-SAMPLE: .*calibrate fitted those bands on 16 questions, and 6 of these 16 are among them/m);
    expect(text).toMatch(/^Held out of the bands, the 10 questions calibrate did not fit them on \(\d+ answerable, \d+ unanswerable\), alone: false answers /m);
    expect(text).not.toMatch(/nothing was tuned on these questions/);
  });

  it('a set sharing none of them is held out of the bands, and says so', async () => {
    const { json, text } = await evalOf(write('other.jsonl', lines().map(reworded)));
    expect(json.inSample).toBe(false);
    expect(json.bandsFittedOn).toMatchObject({ scoredFittedOn: 0 });
    expect(text).toMatch(/nothing was tuned on these questions \(none of them is among the 16 calibrate fitted the bands on\)/);
  });

  it('an older thresholds.json, naming only a path, keeps working: in-sample for that path, and otherwise says it cannot tell', async () => {
    const thresholds = JSON.parse(readFileSync(join(library, 'thresholds.json'), 'utf8')) as Record<string, unknown>;
    const { fittedOnQuestions: _, ...older } = thresholds;
    writeFileSync(join(library, 'thresholds.json'), JSON.stringify({ ...older, fittedOn: fitted }));
    try {
      expect((await evalOf(fitted)).json.inSample).toBe(true);
      const { json, text } = await evalOf(write('copy-2.jsonl', lines()));
      expect(json.bandsFittedOn).toMatchObject({ questionsRecorded: null, scoredFittedOn: null });
      expect(text).toMatch(
        /an older thresholds\.json, naming that file but not its questions, so whether these questions are among them cannot be told\. Run calibrate again/,
      );
      expect(text).not.toMatch(/nothing was tuned on these questions/);
    } finally {
      writeFileSync(join(library, 'thresholds.json'), JSON.stringify(thresholds));
    }
  });
});
