// `npm run train [-- --exclude a,b] [--out FILE]`: train the answerability model on every development corpus that is
// here (eval-corpora/*, texts rebuilt by `npm run corpora`) plus the generated set, and write the weights and bands
// to packages/engine/src/answerability/answerability-model.json — the model the product ships — or, with --out, to
// FILE (a model held out of some corpora, for `sandscope eval --model FILE` to score them with; the shipped model
// is left as it is). The same
// procedure (`trainModel`) is what `sandscope eval --loco` validates, holding each corpus out in turn.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { outOfCorpusRows, separationFigures, trainModel } from '@sandscope/eval';
import { excludedCorpora, loadGeneratedSet, measuredCorpora } from './corpora.ts';
import { UserError } from 'sandscope/user-error';
import { runScript } from './script-boundary.ts';

export const MODEL_PATH = 'packages/engine/src/answerability/answerability-model.json';

await runScript('train', async () => {
  const root = join(import.meta.dirname, '..');
  const exclude = excludedCorpora(process.argv);
  const outAt = process.argv.indexOf('--out');
  const out = outAt >= 0 ? process.argv[outAt + 1] : undefined;
  if (outAt >= 0 && (!out || out.startsWith('-'))) throw new UserError('--out needs a file to write: npm run train -- --exclude a,b --out held-out-model.json');
  // The model that ships is trained on every corpus, or on a set named on purpose (--exclude): a missing text
  // must not quietly make a model different from the one the record was checked against.
  const corpora = await measuredCorpora(root, (name) => !exclude.has(name), ' Or pass --exclude to leave them out on purpose.');
  const generated = await loadGeneratedSet(join(root, 'corpus'));
  const groups = [generated, ...corpora];
  const trained = trainModel(groups);
  const model = { ...trained.model, trainedAt: new Date().toISOString().slice(0, 10) };
  writeFileSync(out ?? join(root, MODEL_PATH), `${JSON.stringify(model, null, 1)}\n`);
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  console.log(`trained on ${groups.map((g) => `${g.name} (${g.measured.length})`).join(', ')}${exclude.size ? `; kept out: ${[...exclude].join(', ')}` : ''}`);
  console.log(
    `bands: refuse below ${model.bands.insufficientBelow.toFixed(3)}, answer from ${model.bands.sufficientAbove.toFixed(3)} — fitted on out-of-corpus ratings: false answers ${pct(trained.bandFit.fitted.falseAnswerRate)}, false refusals ${pct(trained.bandFit.fitted.falseRefusalRate)}, deferral ${pct(trained.bandFit.fitted.deferralRate)}${trained.bandFit.feasible ? '' : ' (no pair met both budgets: the false-answer budget was kept)'}`,
  );
  // The out-of-corpus ratings the bands were fitted on are each corpus's leave-one-corpus-out rating, so their
  // separation is a development figure in a minute, not the whole leave-one-corpus-out run's: for trying an idea on
  // the corpora trained on. It judges nothing — an experiment is judged on corpora held out of it (`eval --loco --held-out`).
  const templated = new Set(generated.measured);
  const real = outOfCorpusRows(trained, (m) => templated.has(m));
  console.log(
    `out-of-corpus separation over the ${groups.length - 1} corpora (${real.length} questions, the generated set left out): ${separationFigures(real)}`,
  );
  // `--rows FILE`: those ratings as rows `npm run eval:groups` reads, so two ideas' development figures can be
  // compared with the paired interval (a verdict here is the product's decision under the fitted bands on the
  // out-of-corpus rating, from `outOfCorpusRows`: S-083).
  const rowsAt = process.argv.indexOf('--rows');
  if (rowsAt >= 0) {
    const file = process.argv[rowsAt + 1];
    if (!file) throw new UserError('--rows needs a file to write: npm run train -- --rows out-of-corpus.json');
    writeFileSync(file, `${JSON.stringify({ questions: real }, null, 1)}\n`);
    console.log(`wrote ${real.length} out-of-corpus rows to ${file}`);
  }
  console.log(`wrote ${out ?? MODEL_PATH}`);
});
