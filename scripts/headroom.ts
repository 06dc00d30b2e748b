// `npm run -s train:headroom`: where the false refusals are, on the out-of-corpus ratings `npm run train` fits
// its bands on — so the next idea is aimed where the headroom is. At the one line that lets 5% of the
// unanswerable questions through, it counts the answerable questions refused by where retrieval put their
// labelled passage and by how they were written (`mechanism`), and compares that line with one drawn for each
// corpus on its own labels (`refusalsAtEachCorpusCut`: the most any per-corpus recalibration could gain).
// It judges nothing: it is printed over every corpus here (their aggregates, no question read).
import { join } from 'node:path';
import { cutAt, outOfCorpusRows, refusalsAt, refusalsAtEachCorpusCut, separationFigures, trainModel } from '@sandscope/eval';
import { loadGeneratedSet, measuredCorpora } from './corpora.ts';
import { runScript } from './script-boundary.ts';

const SHARE = 0.05;

await runScript('train:headroom', async () => {
  const root = join(import.meta.dirname, '..');
  const corpora = await measuredCorpora(root);
  const generated = await loadGeneratedSet(join(root, 'corpus'));
  const templated = new Set(generated.measured);
  const trained = trainModel([generated, ...corpora]);
  const real = outOfCorpusRows(trained, (m) => templated.has(m));
  console.log(`out-of-corpus ratings over ${corpora.length} corpora (${real.length} questions, the generated set left out): ${separationFigures(real)}`);
  for (const share of [0.05, 0.1]) {
    console.log(
      `false refusals where ${100 * share}% of the unanswerable are answered: one line for all ${refusalsAt(real, share).toFixed(3)}, each corpus its own line ${refusalsAtEachCorpusCut(real, share).toFixed(3)}`,
    );
  }
  const scored = trained.outOfGroup.filter((s) => !templated.has(s.m));
  const rating = (s: (typeof scored)[number]) => s.ratings?.answerability ?? 0;
  const rows = scored.map((s) => ({ label: s.m.question.label, answerability: rating(s), mechanism: s.m.question.mechanism }));
  const cut = cutAt(rows, SHARE);
  const answerable = scored.filter((s) => s.m.question.label === 'answerable');
  const table = (title: string, key: (s: (typeof answerable)[number]) => string) => {
    const by = new Map<string, { n: number; refused: number }>();
    for (const s of answerable) {
      const t = by.get(key(s)) ?? { n: 0, refused: 0 };
      t.n++;
      if (rating(s) <= cut) t.refused++;
      by.set(key(s), t);
    }
    console.log(`  by ${title}:`);
    for (const [k, t] of [...by].sort((a, b) => b[1].n - a[1].n))
      console.log(`    ${k.padEnd(28)} ${String(t.n).padStart(5)} answerable, ${String(t.refused).padStart(5)} refused (${(t.refused / t.n).toFixed(3)})`);
  };
  console.log(`at the line where ${100 * SHARE}% of the unanswerable are answered (rating ${cut.toFixed(4)}), the ${answerable.length} answerable questions:`);
  table('where retrieval ranked the labelled passage (or document)', (s) => {
    const r = s.m.rank;
    if (r === null) return s.m.question.evidence || s.m.question.doc ? 'not in the top 50' : 'no passage labelled';
    return r === 1 ? 'first' : r <= 6 ? '2nd to 6th (read by the gate)' : '7th to 50th (not read)';
  });
  table('how the question was written', (s) => s.m.question.mechanism);
  // The other side of the line: which unanswerable questions hold it up, and what rating each kind 0 (handled
  // perfectly) would free — the most a feature aimed at that kind could gain.
  const unanswerable = scored.filter((s) => s.m.question.label === 'unanswerable');
  console.log(`the ${unanswerable.length} unanswerable questions, by how they were written, and the false refusals at ${100 * SHARE}% were each kind rated 0:`);
  const kinds = [...new Set(unanswerable.map((s) => s.m.question.mechanism))];
  for (const k of kinds.sort(
    (a, b) => unanswerable.filter((s) => s.m.question.mechanism === b).length - unanswerable.filter((s) => s.m.question.mechanism === a).length,
  )) {
    const own = unanswerable.filter((s) => s.m.question.mechanism === k);
    const freed = rows.map((r) => (r.label === 'unanswerable' && r.mechanism === k ? { ...r, answerability: 0 } : r));
    console.log(
      `    ${k.padEnd(28)} ${String(own.length).padStart(5)} unanswerable, ${String(own.filter((s) => rating(s) > cut).length).padStart(4)} above the line; rated 0: ${refusalsAt(freed, SHARE).toFixed(3)}`,
    );
  }
  const retrieved = answerable.filter((s) => s.m.gold.includes(true) && s.ratings);
  const picked = retrieved.filter((s) => s.m.gold[s.ratings!.probabilities.indexOf(Math.max(...s.ratings!.probabilities))]);
  console.log(`the passage stage rated the labelled passage best for ${picked.length} of the ${retrieved.length} whose labelled passage the gate read`);
});
