import { evaluateLeaveOneCorpusOut, type HeldOutGroup, leaveOneCorpusOut, type Measured } from '@sandscope/eval';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadGeneratedSet } from './cli/eval-corpora.ts';
import { evaluateLeaveOneCorpusOutInWorkers, foldsInWorkers } from './folds-in-workers.ts';
import { UserError } from './user-error.ts';

let groups: HeldOutGroup[];
let always: { name: string; measured: Measured[] };

beforeAll(async () => {
  // The shipped corpus's generated set, dealt into three "corpora" (one bringing typed questions) and a set every
  // fold trains on, as the generated set is in the record's run.
  const { measured } = await loadGeneratedSet();
  const quarter = (k: number) => measured.filter((_, i) => i % 4 === k);
  groups = [
    { name: 'one', measured: quarter(0) },
    { name: 'two', measured: quarter(1), typed: quarter(1).slice(0, 20), askedAgain: quarter(1).slice(20, 30) },
    { name: 'three', measured: quarter(2) },
  ];
  always = { name: 'always', measured: quarter(3) };
});

describe('leave-one-corpus-out folds in worker threads (S-217)', () => {
  it('are the folds computed in turn, to the last bit, pooled in the same order', async () => {
    const serial = leaveOneCorpusOut(groups, { alwaysTrainOn: [always] });
    const folds = await foldsInWorkers(groups, { alwaysTrainOn: [always] }, { threads: 2 });
    expect(folds.map((f) => f.held.corpus)).toEqual(['one', 'two', 'three']);
    expect(JSON.stringify(leaveOneCorpusOut(groups, { alwaysTrainOn: [always], folds }))).toBe(JSON.stringify(serial));
  });

  it('make the report the serial run makes, its options given once for folds and report alike', async () => {
    const options = { alwaysTrainOn: [always], shippedBands: { insufficientBelow: 0.5, sufficientAbove: 0.5 } };
    const serial = evaluateLeaveOneCorpusOut(groups, options);
    expect(JSON.stringify(await evaluateLeaveOneCorpusOutInWorkers(groups, options))).toBe(JSON.stringify(serial));
  });

  it('score only the corpora held out, each still trained without itself', async () => {
    const heldOut = new Set(['three', 'one']);
    const folds = await foldsInWorkers(groups, { heldOut }, { threads: 2 });
    expect(folds.map((f) => f.held.corpus)).toEqual(['one', 'three']);
    expect(JSON.stringify(leaveOneCorpusOut(groups, { heldOut, folds }))).toBe(JSON.stringify(leaveOneCorpusOut(groups, { heldOut })));
  });

  it('fail with the fold named when a fold throws in its worker', async () => {
    const broken = [...groups, { name: 'broken', measured: [{ question: { id: 'x' } } as unknown as Measured] }];
    await expect(foldsInWorkers(broken, {}, { threads: 2 })).rejects.toThrow(/^leave-one-corpus-out fold (one|two): TypeError/);
  });

  it('say what to do, as one line a person can act on, when a worker runs out of memory', async () => {
    const run = foldsInWorkers(
      groups,
      { alwaysTrainOn: [always] },
      { threads: 2, resourceLimits: { maxOldGenerationSizeMb: 16, maxYoungGenerationSizeMb: 4 } },
    );
    await expect(run).rejects.toBeInstanceOf(UserError);
    await expect(run).rejects.toThrow(
      /^leave-one-corpus-out (fold (one|two)|a fold): its worker ran out of memory \(2 workers at once, .*Free memory, or score fewer corpora at once \(--held-out a,b or --exclude a,b\), and run again\.$/,
    );
  });

  it('are refused when they are not the run’s folds', async () => {
    const folds = await foldsInWorkers(groups, { heldOut: new Set(['one']) }, { threads: 2 });
    expect(() => leaveOneCorpusOut(groups, { folds })).toThrow(/the folds given score one, not one, two, three/);
  });
});
