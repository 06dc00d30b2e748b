// `npm run -s train:curve`: would more development corpora help? The same training (`trainModel`, the generated
// set always in) on k of the corpora, rating 8 others it never saw — for k from 4 to every one left, a few random
// draws each over three random splits (a fixed seed, so the printout repeats). If the separation still climbs at
// the largest k, writing more corpora is the next step; if it has flattened, the features are the limit, not the
// data. It judges nothing: it is printed over every corpus here (their aggregates, no question read).
import { join } from 'node:path';
import { rate } from '@sandscope/engine';
import { refusalsAt, separation, trainModel } from '@sandscope/eval';
import { loadGeneratedSet, measuredCorpora } from './corpora.ts';
import { runScript } from './script-boundary.ts';

const TEST = 8;
const SPLITS = 3;
const DRAWS = 2;

/** A linear congruential generator: the same draws on every machine, no dependency. */
function random(seed: number) {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

await runScript('train:curve', async () => {
  const root = join(import.meta.dirname, '..');
  const corpora = await measuredCorpora(root);
  const generated = await loadGeneratedSet(join(root, 'corpus'));
  const rand = random(7);
  const shuffle = <T>(a: readonly T[]) => {
    const b = [...a];
    for (let i = b.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [b[i], b[j]] = [b[j]!, b[i]!];
    }
    return b;
  };
  const pool = corpora.length - TEST;
  const sizes = [...new Set([4, 8, 12, 16, pool].filter((k) => k <= pool))];
  console.log(`${corpora.length} corpora: ${TEST} rated by models trained on k of the other ${pool}, ${SPLITS} splits × ${DRAWS} draws`);
  const figures = new Map<number, { auc: number[]; fr5: number[]; fr10: number[] }>();
  for (let split = 0; split < SPLITS; split++) {
    const order = shuffle(corpora);
    const test = order.slice(0, TEST);
    for (const k of sizes) {
      for (let draw = 0; draw < DRAWS; draw++) {
        const { model } = trainModel([generated, ...shuffle(order.slice(TEST)).slice(0, k)]);
        // The engine's own rating; a degraded question or one with nothing retrieved has none, and is refused.
        const rows = test.flatMap((c) => c.measured.map((m) => ({ label: m.question.label, answerability: rate(m.features, model)?.answerability ?? 0 })));
        const f = figures.get(k) ?? { auc: [], fr5: [], fr10: [] };
        f.auc.push(separation(rows));
        f.fr5.push(refusalsAt(rows, 0.05));
        f.fr10.push(refusalsAt(rows, 0.1));
        figures.set(k, f);
      }
    }
  }
  const mean = (a: readonly number[]) => a.reduce((s, x) => s + x, 0) / a.length;
  const spread = (a: readonly number[]) => `${Math.min(...a).toFixed(4)}–${Math.max(...a).toFixed(4)}`;
  for (const [k, f] of figures) {
    console.log(
      `  trained on ${String(k).padStart(2)}: AUC ${mean(f.auc).toFixed(4)} (${spread(f.auc)}), FR@FA5 ${mean(f.fr5).toFixed(3)}, FR@FA10 ${mean(f.fr10).toFixed(3)} (${f.auc.length} runs)`,
    );
  }
});
