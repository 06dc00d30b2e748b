// Where the record's wrong-source answers come from, in aggregates (no question is printed). Each record question is
// decided by the shipped model (trained on every corpus, so this is a development reading, not a held-out figure); an
// answered answerable question that cites no labelled passage is sorted by where its labelled passage was: among the
// passages the answer was drawn from but not cited (the drafting), in the search's top six but not chosen (the
// choice), or not in the top six (the search). Run at the repo root with the corpora built:
// `npx tsx docs/experiments/2026-12-06-wrong-source/tally.ts`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { decideAnswerability, draftExtractive, parseModel } from '@sandscope/engine';
import { isGold } from '@sandscope/eval';
import { measuredCorpora } from '../../../scripts/corpora.ts';

const root = join(import.meta.dirname, '../../..');
const parsed = parseModel(JSON.parse(readFileSync(join(root, 'packages/engine/src/answerability/answerability-model.json'), 'utf8')));
if (!parsed.ok) throw new Error(parsed.message);
const model = parsed.model;
const tally = new Map<string, number>();
const count = (k: string) => tally.set(k, (tally.get(k) ?? 0) + 1);
for (const c of await measuredCorpora(root))
  for (const m of c.measured) {
    const q = m.question;
    if (q.label !== 'answerable' || !(q.evidence || q.doc)) continue;
    const d = decideAnswerability(m.features, model, model.bands);
    if (d.verdict === 'refused') continue;
    count('answered answerable questions');
    const cited = new Set(draftExtractive(q.question, d.evidence).flatMap((x) => x.citations));
    if (d.evidence.some((x) => cited.has(x.id) && isGold(q, x))) continue;
    count('wrong source');
    const chosen = d.evidence[0]!;
    const rank = m.retrieval.results.findIndex((x) => isGold(q, x.chunk));
    const chosenRank = m.retrieval.results.findIndex((x) => x.chunk.id === chosen.id);
    if (d.evidence.some((x) => isGold(q, x))) count('  labelled passage among the evidence, not cited (the drafting)');
    else if (rank < 0) count('  labelled passage not in the top six (the search)');
    else {
      count('  labelled passage in the top six, another chosen (the choice)');
      count(rank < chosenRank ? '    the search ranked the labelled passage above the chosen one' : '    the search ranked the chosen passage above the labelled one');
    }
    const goldDoc = q.doc ?? m.goldChunk?.doc;
    count(chosen.doc === goldDoc ? '  chosen passage from the labelled document (another section)' : '  chosen passage from another document');
  }
const order = [
  'answered answerable questions',
  'wrong source',
  '  labelled passage among the evidence, not cited (the drafting)',
  '  labelled passage not in the top six (the search)',
  '  labelled passage in the top six, another chosen (the choice)',
  '    the search ranked the chosen passage above the labelled one',
  '    the search ranked the labelled passage above the chosen one',
  '  chosen passage from the labelled document (another section)',
  '  chosen passage from another document',
];
for (const k of order) console.log(`${k}: ${tally.get(k) ?? 0}`);
