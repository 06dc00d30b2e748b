// Step 3: does the sentence similarity add to the shipped model's held-out rating? A logistic model over
// [logit(rating)] and over [logit(rating), similarity…] is fitted leave-one-corpus-out (each corpus scored by a fit on
// the others), and the pooled held-out AUC and false-refusal rate where 5% of unanswerable questions are answered
// (FR@FA5) are printed. ADR-0013's bar for an offline change: AUC +0.005 or FR@FA5 −0.02.
import fs from 'node:fs';

const rows = JSON.parse(fs.readFileSync('sims.json', 'utf8')).filter((r) => typeof r.a === 'number');
const logit = (p) => Math.log(Math.min(1 - 1e-6, Math.max(1e-6, p)) / (1 - Math.min(1 - 1e-6, Math.max(1e-6, p))));
const features = {
  'rating alone': (r) => [logit(r.a)],
  'rating + top passage similarity': (r) => [logit(r.a), r.sims[0] ?? 0],
  'rating + top and best-of-three similarity': (r) => [logit(r.a), Math.max(...r.sims, 0), r.sims[0] ?? 0],
  'similarity alone': (r) => [Math.max(...r.sims, 0), r.sims[0] ?? 0],
};
function fit(X, y) {
  const d = X[0].length;
  const mu = [], sd = [];
  for (let j = 0; j < d; j++) {
    const col = X.map((x) => x[j]);
    const m = col.reduce((a, b) => a + b) / col.length;
    mu.push(m);
    sd.push(Math.sqrt(col.reduce((a, b) => a + (b - m) ** 2, 0) / col.length) || 1);
  }
  const Z = X.map((x) => x.map((v, j) => (v - mu[j]) / sd[j]));
  const w = new Array(d + 1).fill(0);
  for (let it = 0; it < 500; it++) {
    const g = new Array(d + 1).fill(0);
    Z.forEach((z, i) => {
      const e = 1 / (1 + Math.exp(-(w[d] + z.reduce((s, v, j) => s + w[j] * v, 0)))) - y[i];
      z.forEach((v, j) => (g[j] += e * v));
      g[d] += e;
    });
    for (let j = 0; j <= d; j++) w[j] -= (0.1 * g[j]) / Z.length;
  }
  return (x) => 1 / (1 + Math.exp(-(w[d] + x.reduce((s, v, j) => s + (w[j] * (v - mu[j])) / sd[j], 0))));
}
function auc(ps, ys) {
  const pos = ps.filter((_, i) => ys[i]), neg = ps.filter((_, i) => !ys[i]);
  let c = 0;
  for (const a of pos) for (const b of neg) c += a > b ? 1 : a === b ? 0.5 : 0;
  return c / (pos.length * neg.length);
}
function frAtFa(ps, ys, share) {
  const neg = ps.filter((_, i) => !ys[i]).sort((a, b) => b - a);
  const cut = neg[Math.floor(share * neg.length)];
  const pos = ps.filter((_, i) => ys[i]);
  return pos.filter((p) => p <= cut).length / pos.length;
}
const corpora = [...new Set(rows.map((r) => r.corpus))];
const label = (r) => (r.label === 'answerable' ? 1 : 0);
console.log(`${rows.length} questions, ${corpora.length} corpora, each scored by a fit on the others:`);
for (const [name, f] of Object.entries(features)) {
  const ps = [], ys = [];
  for (const c of corpora) {
    const train = rows.filter((r) => r.corpus !== c);
    const m = fit(train.map(f), train.map(label));
    for (const r of rows.filter((r) => r.corpus === c)) ps.push(m(f(r))), ys.push(label(r));
  }
  console.log(`  ${name.padEnd(42)} AUC ${auc(ps, ys).toFixed(4)}  FR@FA5 ${frAtFa(ps, ys, 0.05).toFixed(3)}`);
}
