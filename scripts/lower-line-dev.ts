// `npx tsx scripts/lower-line-dev.ts [--exclude a,b]`: the development reading behind S-071 (docs/experiments,
// 2026-12-03). On the out-of-corpus ratings `npm run train` fits its bands on, each corpus is held out in turn from
// the fit of the adjudicated bands, and the questions the held-out corpus would have refused without asking a reader
// are counted — for the lower line fitted on the pool alone (every training corpus seen as one) and for the lower line
// held to the budget on each corpus (`fitAdjudicatedBands`). It judges nothing: pass --exclude to keep a judge out.
import { join } from 'node:path';
import { BUDGETS, decidedOutside, fitAdjudicatedBands, type Scored, trainModel } from '@sandscope/eval';
import { excludedCorpora, loadGeneratedSet, measuredCorpora } from './corpora.ts';
import { runScript } from './script-boundary.ts';

await runScript('lower-line-dev', async () => {
  const root = join(import.meta.dirname, '..');
  const exclude = excludedCorpora(process.argv);
  const corpora = await measuredCorpora(root, (name) => !exclude.has(name), ' Or pass --exclude to leave them out on purpose.');
  const generated = await loadGeneratedSet(join(root, 'corpus'));
  const trained = trainModel([generated, ...corpora]);
  const floor = trained.model.bands.sufficientAbove;
  const asOne = (items: readonly Scored[]) => items.map((s) => ({ ...s, m: { ...s.m, corpus: 'pool' } }));
  const rules = {
    'pooled line': (items: readonly Scored[]) => fitAdjudicatedBands(asOne(items), BUDGETS, floor).bands,
    'per-corpus line': (items: readonly Scored[]) => fitAdjudicatedBands(items, BUDGETS, floor).bands,
  };
  console.log(
    `fitted on ${generated.name} and ${corpora.length} corpora${exclude.size ? ` (kept out: ${[...exclude].join(', ')})` : ''}; each corpus held out of the bands' fit in turn`,
  );
  for (const [name, rule] of Object.entries(rules)) {
    let nA = 0;
    let refused = 0;
    let n = 0;
    let deferred = 0;
    const over: string[] = [];
    for (const c of corpora) {
      const bands = rule(trained.outOfGroup.filter((s) => s.m.corpus !== c.name));
      const r = decidedOutside(
        trained.outOfGroup.filter((s) => s.m.corpus === c.name),
        bands,
      );
      const fr = Math.round(r.falseRefusalRate * r.nA);
      nA += r.nA;
      refused += fr;
      n += r.nA + r.nU;
      deferred += r.deferredAnswerable + r.deferredUnanswerable;
      if (r.falseRefusalRate > BUDGETS.falseRefusalRate) over.push(c.name);
    }
    console.log(
      `${name}: answerable refused without asking ${refused}/${nA} (${((100 * refused) / nA).toFixed(1)}%), corpora over ${100 * BUDGETS.falseRefusalRate}%: ${over.length}/${corpora.length}; deferred ${((100 * deferred) / n).toFixed(1)}%`,
    );
  }
});
