// `npm run label:audit -- DIR`: how far the hand-written labels can be trusted. DIR holds CORPUS.verdicts.jsonl
// files: a second annotator's blind judgement of a sample of a corpus's questions (shown each question alone, with
// the corpus's documents and nothing else — no label, no evidence, no gate). This prints how often the second
// annotator agrees with the label, with a 95% Wilson interval, and the gate's held-out verdicts (docs/evaluation.json,
// leave-one-corpus-out) scored against each annotator and against the questions both agree on. A false-refusal
// target of 10% means little if one answerable label in five is disputed: this is how big that doubt is.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { wilsonUpper } from '@sandscope/eval';
import { z } from 'zod';
import { UserError } from 'sandscope/user-error';
import { corporaDir } from './corpora.ts';
import { readJsonl } from './jsonl.ts';
import { runScript } from './script-boundary.ts';

const Verdict = z.object({ id: z.string(), answered: z.boolean(), borderline: z.boolean().optional(), file: z.string().nullable().optional() });
const Label = z.object({ id: z.string(), label: z.enum(['answerable', 'unanswerable']), doc: z.string().optional() });
const Record = z.object({ questions: z.array(z.object({ id: z.string(), corpus: z.string(), verdict: z.string() })) });

type Case = { corpus: string; id: string; labelled: boolean; audited: boolean; borderline: boolean; sameDoc: boolean | null; gateAnswered: boolean };

/** k of n with its two-sided 95% Wilson interval, from the one-sided bound the band fit uses (z = 1.96). */
const share = (k: number, n: number) => {
  if (!n) return `${k}/${n}`;
  const p = k / n;
  const [low, high] = [1 - wilsonUpper(1 - p, n, 1.96), wilsonUpper(p, n, 1.96)];
  return `${k}/${n} = ${(100 * p).toFixed(1)}% [${(100 * low).toFixed(1)}, ${(100 * high).toFixed(1)}]`;
};

function report(title: string, cases: readonly Case[]) {
  const answerable = cases.filter((c) => c.labelled);
  const unanswerable = cases.filter((c) => !c.labelled);
  const agreeA = answerable.filter((c) => c.audited);
  console.log(`${title}: ${cases.length} questions`);
  console.log(`  answerable labels the second annotator confirms:   ${share(agreeA.length, answerable.length)}`);
  console.log(`    … and found in the labelled document:           ${share(agreeA.filter((c) => c.sameDoc).length, agreeA.length)}`);
  console.log(`  unanswerable labels the second annotator confirms: ${share(unanswerable.filter((c) => !c.audited).length, unanswerable.length)}`);
  console.log(`  marked borderline by the second annotator:         ${share(cases.filter((c) => c.borderline).length, cases.length)}`);
  const gate = (rows: readonly Case[], truth: (c: Case) => boolean) => {
    const yes = rows.filter(truth);
    const no = rows.filter((c) => !truth(c));
    return `false answers ${share(no.filter((c) => c.gateAnswered).length, no.length)}; false refusals ${share(yes.filter((c) => !c.gateAnswered).length, yes.length)}`;
  };
  console.log(`  gate (held out) against the labels:               ${gate(cases, (c) => c.labelled)}`);
  console.log(`  gate (held out) against the second annotator:      ${gate(cases, (c) => c.audited)}`);
  const agreed = cases.filter((c) => c.labelled === c.audited);
  console.log(`  gate on the ${agreed.length} both annotators agree on:      ${gate(agreed, (c) => c.labelled)}`);
}

await runScript('label:audit', async () => {
  const dir = process.argv[2];
  if (!dir || !existsSync(dir)) throw new UserError('name the folder of CORPUS.verdicts.jsonl files: npm run label:audit -- docs/experiments/label-audit');
  const root = join(import.meta.dirname, '..');
  const recorded = Record.safeParse(JSON.parse(readFileSync(join(root, 'docs/evaluation.json'), 'utf8')));
  if (!recorded.success) throw new UserError('docs/evaluation.json has no question rows; restore it with git checkout -- docs/evaluation.json');
  const record = recorded.data;
  const gateOf = new Map(record.questions.map((q) => [`${q.corpus}\u0000${q.id}`, q.verdict !== 'refused']));
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.verdicts.jsonl'))
    .sort();
  if (!files.length) throw new UserError(`${dir}: no CORPUS.verdicts.jsonl file in it`);
  const all: Case[] = [];
  for (const file of files) {
    const corpus = file.replace(/\.verdicts\.jsonl$/, '');
    const questions = join(corporaDir(root), corpus, 'questions.jsonl');
    if (!existsSync(questions)) throw new UserError(`${file}: no corpus ${corpus} in eval-corpora/`);
    const labels = new Map(readJsonl(questions, Label.passthrough(), 'question line').map((l) => [l.id, l]));
    const cases = readJsonl(join(dir, file), Verdict, 'verdict line').map((v): Case => {
      const label = labels.get(v.id);
      const gateAnswered = gateOf.get(`${corpus}\u0000${v.id}`);
      if (!label || gateAnswered === undefined) throw new UserError(`${file}: ${v.id} is not a question of ${corpus} in the record`);
      const doc = label.doc?.replace(/^docs\//, '');
      return {
        corpus,
        id: v.id,
        labelled: label.label === 'answerable',
        audited: v.answered,
        borderline: v.borderline ?? false,
        sameDoc: v.answered && doc ? (v.file ?? '').replace(/^.*\//, '') === doc.replace(/^.*\//, '') : null,
        gateAnswered,
      };
    });
    report(corpus, cases);
    all.push(...cases);
  }
  if (files.length > 1) report('pooled', all);
});
