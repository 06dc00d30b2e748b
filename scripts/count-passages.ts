// Prints the corpus's word and passage counts (used while writing corpus/).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chunkCorpus, documentTitle } from '@sandscope/engine';

const dir = process.argv[2] ?? 'corpus/docs';
const docs = readdirSync(dir).filter((f) => f.endsWith('.md')).sort().map((doc) => {
  const text = readFileSync(join(dir, doc), 'utf8');
  return { doc, title: documentTitle(doc, text), text };
});
const chunks = chunkCorpus(docs);
const words = docs.reduce((n, d) => n + d.text.split(/\s+/).filter(Boolean).length, 0);
for (const d of docs) console.log(`${d.doc}: ${chunks.filter((c) => c.doc === d.doc).length} passages, ${d.text.split(/\s+/).filter(Boolean).length} words`);
console.log(`documents=${docs.length} words=${words} passages=${chunks.length}`);
