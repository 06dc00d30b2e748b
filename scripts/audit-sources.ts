// `npm run -s eval:source-audit`: of the record's wrong-source answers (docs/evaluation.json, leave-one-corpus-out),
// how many cite a passage that answers the question too, and how many a passage that does not: a blind reader's
// judgements kept in docs/experiments/source-audit/judgements.jsonl (packages/eval/src/source-audit.ts says why).
//   --items DIR [--batches N]  write the blind items (DIR/items-K.jsonl: the question and passages A and B, nothing
//                              else) and DIR/key.jsonl (which passages each item cited and which is labelled)
//   --record DIR               merge the reader's DIR/judged-*.jsonl with DIR/key.jsonl into the judgements file
// With neither, it prints the audit. A judgement counts only while the record's answer cites the passages it saw.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Chunk } from '@sandscope/engine';
import { loadEvalCorpora } from 'sandscope/corpus';
import { UserError } from 'sandscope/user-error';
import { z } from 'zod';
import { corporaDir } from './corpora.ts';
import { readJsonl } from './jsonl.ts';
import { runScript } from './script-boundary.ts';
import { citedSide, JudgedSourceItem, recordedOf, type SourceAuditItem, SourceJudgement, type WrongSource, wilsonUpper, wrongSources } from '@sandscope/eval';
import { readRecord, SOURCE_JUDGEMENTS, sourceAudit } from './eval-render.ts';

const root = join(import.meta.dirname, '..');
const JUDGEMENTS = join(root, SOURCE_JUDGEMENTS);

const Key = z.object({ id: z.string(), corpus: z.string(), cited: z.array(z.string()), labelled: z.string() });

function wrongSourceRows(): WrongSource[] {
  const { questions } = readRecord(root);
  if (questions.some((q) => q.source === 'wrong' && !q.cited?.length))
    throw new UserError('docs/evaluation.json does not say what its answers cite (a record from before the source audit): run npm run eval:report');
  return wrongSources(questions);
}

const shown = (c: Chunk) => ({ id: c.id, doc: c.doc, heading: c.heading, text: c.text });

async function writeItems(dir: string, batches: number) {
  const rows = wrongSourceRows();
  const names = new Set(rows.map((r) => r.corpus));
  const corpora = await loadEvalCorpora(corporaDir(root), (n) => names.has(n));
  const items: SourceAuditItem[] = [];
  const keys: z.infer<typeof Key>[] = [];
  for (const row of rows) {
    const corpus = corpora.find((c) => c.name === row.corpus);
    if (!corpus?.measured) throw new UserError(`${row.corpus}: ${corpus?.missing ?? 'not in eval-corpora/'}`);
    const m = corpus.measured.find((x) => x.question.id === row.id);
    if (!m?.goldChunk) throw new UserError(`${row.corpus} ${row.id}: no such question with a labelled passage; the record is older than the corpus`);
    const read = [...m.features.passages, ...m.features.unretrievedSections].map((p) => p.result.chunk);
    const cited = row.cited.map((id) => read.find((c) => c.id === id));
    if (cited.some((c) => !c)) throw new UserError(`${row.corpus} ${row.id}: the record cites a passage this measurement never read; run npm run eval:report`);
    const citedPassages = cited.map((c) => shown(c!));
    const labelled = [shown(m.goldChunk)];
    const side = citedSide(row.corpus, row.id);
    items.push({
      id: row.id,
      corpus: row.corpus,
      question: m.question.question,
      A: side === 'A' ? citedPassages : labelled,
      B: side === 'A' ? labelled : citedPassages,
    });
    keys.push({ id: row.id, corpus: row.corpus, cited: [...row.cited], labelled: m.goldChunk.id });
  }
  mkdirSync(dir, { recursive: true });
  const size = Math.ceil(items.length / batches);
  for (let k = 0; k < batches; k++)
    writeFileSync(
      join(dir, `items-${k + 1}.jsonl`),
      items
        .slice(k * size, (k + 1) * size)
        .map((i) => `${JSON.stringify(i)}\n`)
        .join(''),
    );
  writeFileSync(join(dir, 'key.jsonl'), keys.map((k) => `${JSON.stringify(k)}\n`).join(''));
  console.log(`${items.length} wrong-source answers written to ${dir} in ${batches} batches, with key.jsonl`);
}

function record(dir: string) {
  if (!existsSync(join(dir, 'key.jsonl'))) throw new UserError(`${dir} holds no key.jsonl: write the items there first with --items ${dir}`);
  const keys = new Map(readJsonl(join(dir, 'key.jsonl'), Key).map((k) => [`${k.corpus}\u0000${k.id}`, k]));
  const files = readdirSync(dir).filter((f) => /^judged-.*\.jsonl$/.test(f));
  if (!files.length) throw new UserError(`${dir}: no judged-*.jsonl file in it`);
  const out: SourceJudgement[] = [];
  for (const f of files.sort())
    for (const j of readJsonl(join(dir, f), JudgedSourceItem)) {
      const key = keys.get(`${j.corpus}\u0000${j.id}`);
      if (!key) throw new UserError(`${f}: ${j.corpus} ${j.id} is not an item of key.jsonl`);
      // A reader that judged an item twice would have its later verdict silently kept: say which, so it is judged once.
      if (out.some((o) => o.corpus === j.corpus && o.id === j.id)) throw new UserError(`${f}: ${j.corpus} ${j.id} is judged twice; keep one line for it`);
      out.push(recordedOf(j, key.cited, key.labelled));
    }
  mkdirSync(dirname(JUDGEMENTS), { recursive: true });
  writeFileSync(JUDGEMENTS, out.map((r) => `${JSON.stringify(SourceJudgement.parse(r))}\n`).join(''));
  console.log(`${out.length} judgements of ${keys.size} items written to ${JUDGEMENTS.slice(root.length + 1)}`);
}

/** k of n with its two-sided 95% Wilson interval. */
const share = (k: number, n: number) => {
  if (!n) return `${k} of ${n}`;
  const p = k / n;
  const [low, high] = [1 - wilsonUpper(1 - p, n, 1.96), wilsonUpper(p, n, 1.96)];
  return `${k} of ${n} (${(100 * p).toFixed(1)}% [${(100 * low).toFixed(1)}, ${(100 * high).toFixed(1)}])`;
};

function print() {
  wrongSourceRows();
  const a = sourceAudit(root, readRecord(root)).sourceAudit;
  if (!a) throw new UserError('no judgements kept yet: write items with --items DIR, have them judged, then --record DIR');
  console.log(
    `Source audit of the record's ${a.wrong} wrong-source answers (docs/evaluation.json): ${a.judged} judged by a blind reader on the passages the answer cites${a.stale ? `, ${a.stale} judged on passages the record no longer cites (not counted)` : ''}${a.wrong - a.judged - a.stale ? `, ${a.wrong - a.judged - a.stale} not judged` : ''}.`,
  );
  console.log(`  the cited passage answers the question:    yes ${share(a.cited.yes, a.judged)}; partly ${a.cited.partly}; no ${a.cited.no}`);
  console.log(`  the labelled passage (the control) answers: yes ${share(a.labelled.yes, a.judged)}; partly ${a.labelled.partly}; no ${a.labelled.no}`);
}

await runScript('eval:source-audit', async () => {
  const argv = process.argv.slice(2);
  const at = (flag: string) => {
    const i = argv.indexOf(flag);
    if (i < 0) return undefined;
    const v = argv[i + 1];
    if (!v || v.startsWith('--')) throw new UserError(`${flag} needs a value`);
    return v;
  };
  const items = at('--items');
  const recordDir = at('--record');
  const batches = Number(at('--batches') ?? 1);
  if (!Number.isInteger(batches) || batches < 1) throw new UserError('--batches takes a whole number of at least 1');
  if (items) await writeItems(items, batches);
  else if (recordDir) record(recordDir);
  else print();
});
