import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ADJUDICATED_QUESTIONS } from 'sandscope/testing';
import { describe, expect, it } from 'vitest';

/*
 * `npm run eval:replayed`: recorded judgements stand in for a provider, through the product's own code path. On the
 * bundled corpus, under the shipped model, two of ADJUDICATED_QUESTIONS fall in the adjudicated band; one is answered
 * from the sufficient band, which the reader reads before it is given (S-096); the last is refused by the bands alone
 * and never reaches a model.
 */
const root = join(import.meta.dirname, '..');

const replay = async (...args: string[]) => {
  const { stdout, stderr } = await promisify(execFile)(join(root, 'node_modules/.bin/tsx'), [join(root, 'scripts/adjudicator-replay.ts'), ...args], {
    cwd: root,
    env: { ...process.env, GROQ_API_KEY: '', OPENROUTER_API_KEY: '' },
  });
  return { stdout, stderr };
};

describe('eval:replayed', () => {
  it('writes the prompts nothing was recorded for, then replays recorded replies as a provider’s judgements', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'replay-'));
    const questions = join(dir, 'q.jsonl');
    writeFileSync(questions, ADJUDICATED_QUESTIONS.map((q) => JSON.stringify(q)).join('\n'));
    const judgements = join(dir, 'judgements.jsonl');
    const prompts = join(dir, 'prompts.jsonl');

    const recorded = await replay(judgements, '--prompts', prompts, '--questions', questions, '--json');
    // S-100: the question below the lower line is read too, so four prompts.
    expect(recorded.stderr).toMatch(/0 judgements replayed, 4 prompts with none recorded/);
    const asked = readFileSync(prompts, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { key: string; user: string });
    expect(asked.map((p) => p.user.match(/<question>\n(.*)\n<\/question>/)?.[1]).sort()).toEqual([
      'What is the connection pool ceiling for orders-db?',
      'checkout is getting ConnectionAcquireTimeout errors',
      'how do I reboot the mainframe?',
      'what is the pool ceiling of inventory-db?',
    ]);
    // With nothing recorded no model judged: all are decided as offline.
    expect(JSON.parse(recorded.stdout).modelAdjudication).toMatchObject({ judgedBy: {}, unavailable: 3, answersRead: { answerable: 1, unavailable: 1 } });

    // Each prompt's recorded reply refuses: the replay serves it by the prompt's key, and the run counts all four read.
    const refusal = (p: { key: string }) => JSON.stringify({ key: p.key, reply: '{"answers":false,"passage":null,"reason":"not stated"}' });
    writeFileSync(judgements, asked.map(refusal).join('\n'));
    // S-097: each refusal sends the search's next passages to the reader before it stands: four prompts more.
    const refusedOnce = await replay(judgements, '--prompts', prompts, '--questions', questions, '--json');
    expect(refusedOnce.stderr).toMatch(/4 judgements replayed, 4 prompts with none recorded/);
    const deeper = readFileSync(prompts, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { key: string });
    expect(deeper.filter((p) => asked.some((a) => a.key === p.key))).toEqual([]);
    writeFileSync(judgements, [...asked, ...deeper].map(refusal).join('\n'));
    const replayed = await replay(judgements, '--questions', questions, '--json');
    expect(replayed.stderr).toMatch(/8 judgements replayed, 0 prompts with none recorded/);
    const report = JSON.parse(replayed.stdout);
    expect(report.modelAdjudication).toMatchObject({
      judgedBy: { ollama: 3 },
      unavailable: 0,
      answerableLetThrough: 0,
      unanswerableLetThrough: 0,
      answersRead: { answerable: 1, answerableWithheld: 1, unavailable: 0 },
      refusalsRead: { answerable: 0, unanswerable: 1, answerableLetThrough: 0, unanswerableLetThrough: 0 },
    });
    // Both answerable questions refused: the deferred one, and the answer the reader withheld.
    expect(report.falseRefusalRate).toBe(1);
    expect(report.falseAnswerRate).toBe(0);
  }, 60_000);

  it('names a damaged judgements file by line, and asks for --prompts when there is none', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'replay-bad-'));
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, '{"key":"a","reply":"{}"}\n{"key":1}\n');
    await expect(replay(bad, '--json')).rejects.toMatchObject({ stderr: expect.stringMatching(/bad\.jsonl:2: not a \{"key","reply"\} line/) });
    // A line cut short is the same one-line error, not a bug report.
    writeFileSync(bad, '{"key":"a","reply":"{}"}\n{"key":"b","rep\n');
    await expect(replay(bad, '--json')).rejects.toMatchObject({ stderr: expect.stringMatching(/bad\.jsonl:2: not a \{"key","reply"\} line/) });
    await expect(replay(join(dir, 'missing.jsonl'), '--json')).rejects.toMatchObject({
      stderr: expect.stringMatching(/no such file\. Record prompts first with --prompts/),
    });
  }, 30_000);
});
