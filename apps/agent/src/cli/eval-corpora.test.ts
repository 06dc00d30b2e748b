import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCorpusSource } from '../corpus-source.ts';
import { loadEvalCorpora } from './eval-corpora.ts';

const base = mkdtempSync(join(tmpdir(), 'sandscope-eval-corpora-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** A public corpus as `npm run corpora` leaves it: SOURCE.json naming two texts, and those of `present` written. */
function corpus(name: string, present: readonly string[]): void {
  const dir = join(base, name);
  mkdirSync(join(dir, 'docs'), { recursive: true });
  const files = ['docs/runbook.md', 'docs/alerts.md'];
  writeFileSync(
    join(dir, 'SOURCE.json'),
    JSON.stringify({ repository: 'example/ops-docs', commit: 'a'.repeat(40), licence: 'MIT', files: files.map((to) => ({ from: to, to })) }),
  );
  for (const to of present) writeFileSync(join(dir, to), `# ${to}\n\n## Mitigation\n\nRestart the queue worker and watch the backlog drain.\n`);
  writeFileSync(
    join(dir, 'questions.jsonl'),
    `${JSON.stringify({ id: `${name}-1`, question: 'how do i mitigate the backlog?', label: 'answerable', doc: 'docs/runbook.md' })}\n`,
  );
}

describe('loadEvalCorpora', () => {
  it('does not measure a corpus on part of its texts: one SOURCE.json names but the folder lacks is reported missing (S-095)', async () => {
    corpus('partial', ['docs/runbook.md']);
    corpus('whole', ['docs/runbook.md', 'docs/alerts.md']);
    const [partial, whole] = await loadEvalCorpora(base);
    expect(partial?.name).toBe('partial');
    expect(partial?.measured).toBeNull();
    expect(partial?.missing).toMatch(/^1 of its texts are not here \(docs\/alerts\.md\): run `npm run corpora`/);
    expect(whole?.name).toBe('whole');
    expect(whole?.measured).toHaveLength(1);
  }, 60_000);

  it('and `--corpus` on such a folder is a user error naming what is absent and what to run, not a run on part of it', () => {
    corpus('partial-alone', ['docs/alerts.md']);
    expect(() => loadCorpusSource(join(base, 'partial-alone'))).toThrow(
      /partial-alone: 1 of the texts its SOURCE\.json names are not here \(docs\/runbook\.md\)\. Run `npm run corpora -- .+` to rebuild them\./,
    );
  });

  it('measures, for a typed question, the question its refusal would offer again, under the same id and label (S-180)', async () => {
    const dir = join(base, 'slipped');
    mkdirSync(join(dir, 'docs'), { recursive: true });
    writeFileSync(join(dir, 'docs/queue.md'), '# Queue\n\n## Mitigation\n\nRestart the queue worker and watch the backlog drain.\n');
    // "queue" is the one word of five letters or more the library uses, so the slip is in it, and too short to be read.
    writeFileSync(
      join(dir, 'questions.jsonl'),
      `${JSON.stringify({ id: 'q-1', question: 'why is the queue slow?', label: 'answerable', doc: 'docs/queue.md' })}\n`,
    );
    const [c] = await loadEvalCorpora(base, (name) => name === 'slipped', { typedSeed: 4 });
    expect(c?.typed?.[0]?.question.question).not.toBe('why is the queue slow?');
    expect(c?.typed?.[0]?.features.nearMisses.map((n) => n.library)).toEqual([['queue']]);
    expect(c?.askedAgain?.map((m) => [m.question.id, m.question.label, m.question.question])).toEqual([['q-1', 'answerable', 'why is the queue slow?']]);
    // Without typed questions there is nothing to ask again.
    const [plain] = await loadEvalCorpora(base, (name) => name === 'slipped');
    expect(plain?.askedAgain).toBeUndefined();
  }, 60_000);
});
