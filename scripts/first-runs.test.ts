import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { everyFirstRun, loadFirstRuns } from './corpora.ts';

describe('loadFirstRuns', () => {
  const dirWith = (files: Record<string, string>) => {
    const dir = mkdtempSync(join(tmpdir(), 'first-runs-'));
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(join(dir, name));
      writeFileSync(join(dir, name, 'first-run.json'), text);
    }
    mkdirSync(join(dir, 'no-first-run'));
    return dir;
  };

  it('reads every corpus that has one, by name, and leaves the rest out', () => {
    const run = { n: 2, answerable: 1, unanswerable: 1, falseAnswerRate: 0, falseRefusalRate: 1, rightSourceRate: 0 };
    expect(loadFirstRuns(dirWith({ b: JSON.stringify(run), a: JSON.stringify(run) })).map((r) => r.name)).toEqual(['a', 'b']);
  });

  it('names a damaged file and how to restore it, never a JSON parser stack', () => {
    expect(() => loadFirstRuns(dirWith({ a: '{"n": 3' }))).toThrow(/a\/first-run\.json is not a first run \(not JSON\).*git checkout --/);
    expect(() => loadFirstRuns(dirWith({ a: '{"n": 3}' }))).toThrow(/no number for answerable, unanswerable/);
  });

  it('counts the corpora that wait to judge (eval-corpora-pending) beside those in eval-corpora, each once, by name', () => {
    const root = mkdtempSync(join(tmpdir(), 'first-runs-root-'));
    const run = JSON.stringify({ n: 2, answerable: 1, unanswerable: 1, falseAnswerRate: 0, falseRefusalRate: 1, rightSourceRate: 0 });
    for (const [dir, name] of [
      ['eval-corpora', 'c'],
      ['eval-corpora', 'a'],
      ['eval-corpora-pending', 'b'],
    ] as const) {
      mkdirSync(join(root, dir, name), { recursive: true });
      writeFileSync(join(root, dir, name, 'first-run.json'), run);
    }
    expect(everyFirstRun(root).map((r) => r.name)).toEqual(['a', 'b', 'c']);
  });
});
