import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadFirstRuns } from './corpora.ts';

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
});
