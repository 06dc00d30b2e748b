import { describe, expect, it } from 'vitest';
import { fileScores, renderMutationDoc, type Status, scoreOf } from './mutation-score.ts';

const mutant = (status: Status) => ({ status, mutatorName: 'ConditionalExpression', location: { start: { line: 1 } } });

describe('the mutation table (docs/MUTATION.md) is counted from the Stryker report', () => {
  const report = {
    files: {
      'packages/eval/src/metrics.ts': { mutants: [mutant('Killed'), mutant('Survived'), mutant('Ignored')] },
      'packages/engine/src/answerability/decide.ts': {
        mutants: [mutant('Killed'), mutant('Killed'), mutant('Timeout'), mutant('NoCoverage'), mutant('RuntimeError')],
      },
    },
  };

  it('scores detected over valid mutants; ignored and errored ones count in neither', () => {
    const scores = fileScores(report);
    expect(scores.map((s) => [s.file, scoreOf(s)])).toEqual([
      ['packages/engine/src/answerability/decide.ts', 3 / 4],
      ['packages/eval/src/metrics.ts', 1 / 2],
    ]);
    expect(scoreOf({ killed: 0, timeout: 0, survived: 0, noCoverage: 0 })).toBeNull();
  });

  it('writes one row per file and a total row', () => {
    const doc = renderMutationDoc(fileScores(report), 'a test');
    expect(doc).toContain('| `packages/engine/src/answerability/decide.ts` | 75.0% | 2 | 1 | 0 | 1 | 1 | 0 |');
    expect(doc).toContain('| `packages/eval/src/metrics.ts` | 50.0% | 1 | 0 | 1 | 0 | 0 | 1 |');
    expect(doc).toContain('| **all** | 66.7% | 3 | 1 | 1 | 1 | 1 | 1 |');
  });
});
