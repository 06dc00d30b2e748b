// `npm run -s eval:answers -- BASE_DIR CHANGE_DIR`: how an answer-only change is judged (S-054). Each folder holds one
// `sandscope eval --corpus … --questions … --json --rows` output per corpus (NAME.json), written before and after the
// change. It prints, pooled over the corpora both hold: whether every question's verdict and rating stayed the same
// (an answer-only change must not touch the decision), answered procedure questions that carry every labelled step,
// and answered answerable questions that cite their labelled source. Aggregates only: no question is shown.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { UserError } from 'sandscope/user-error';
import { runScript } from './script-boundary.ts';

interface Run {
  readonly procedureAnswers: number;
  readonly stepsCoveredRate: number | null;
  readonly questions?: readonly { id: string; verdict: string; answerability: number | null; source: 'right' | 'wrong' | null }[];
}

function read(dir: string, file: string): Run {
  const run = JSON.parse(readFileSync(`${dir}/${file}`, 'utf8')) as Run;
  if (!run.questions) throw new UserError(`${dir}/${file} has no rows: write it with \`sandscope eval … --json --rows\`.`);
  return run;
}

await runScript('eval:answers', async () => {
  const [base, change] = process.argv.slice(2);
  if (!base || !change || !existsSync(base) || !existsSync(change))
    throw new UserError('name two folders of `sandscope eval --corpus … --json --rows` outputs: npm run -s eval:answers -- BASE_DIR CHANGE_DIR');
  const files = readdirSync(base).filter((f) => f.endsWith('.json') && existsSync(`${change}/${f}`));
  if (!files.length) throw new UserError(`${base} and ${change} hold no NAME.json in common.`);
  let questions = 0;
  let changed = 0;
  const totals = (runs: readonly Run[]) => ({
    procedure: runs.reduce((s, r) => s + r.procedureAnswers, 0),
    everyStep: runs.reduce((s, r) => s + Math.round(r.procedureAnswers * (r.stepsCoveredRate ?? 0)), 0),
    sourced: runs.reduce((s, r) => s + r.questions!.filter((q) => q.source !== null).length, 0),
    right: runs.reduce((s, r) => s + r.questions!.filter((q) => q.source === 'right').length, 0),
  });
  const before: Run[] = [];
  const after: Run[] = [];
  for (const f of files) {
    const [b, c] = [read(base, f), read(change, f)];
    before.push(b);
    after.push(c);
    b.questions!.forEach((q, i) => {
      questions++;
      const d = c.questions![i];
      if (!d || d.id !== q.id || d.verdict !== q.verdict || d.answerability !== q.answerability) changed++;
    });
  }
  const [x, y] = [totals(before), totals(after)];
  console.log(`${files.length} corpora, ${questions} questions: verdict or rating changed on ${changed}`);
  console.log(`answered procedure questions carrying every labelled step: ${x.everyStep} of ${x.procedure} → ${y.everyStep} of ${y.procedure}`);
  console.log(`answered answerable questions citing their labelled source: ${x.right} of ${x.sourced} → ${y.right} of ${y.sourced}`);
});
