// Step 1 of the sentence-encoder experiment (README.md beside this file): each record question with its label, its
// held-out answerability rating from docs/evaluation.json (leave-one-corpus-out) and the texts of the search's top
// passages, to rows.jsonl. Run from the repo root: `npx tsx docs/experiments/2026-12-06-sentence-encoder/dump.ts OUT`.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { measuredCorpora } from '../../../scripts/corpora.ts';

const root = join(import.meta.dirname, '../../..');
const record = JSON.parse(readFileSync(join(root, 'docs/evaluation.json'), 'utf8')) as { questions: { id: string; answerability: number }[] };
const rating = new Map(record.questions.map((q) => [q.id, q.answerability]));
const out: string[] = [];
for (const c of await measuredCorpora(root))
  for (const m of c.measured) {
    if (!rating.has(m.question.id)) continue;
    const p = m.retrieval.results.slice(0, 3).map((x) => x.chunk.text.slice(0, 1500));
    out.push(JSON.stringify({ id: m.question.id, corpus: c.name, label: m.question.label, a: rating.get(m.question.id), q: m.question.question, p }));
  }
writeFileSync(process.argv[2] ?? 'rows.jsonl', `${out.join('\n')}\n`);
console.log(`${out.length} questions`);
