// `npm run -s eval:answers -- BASE_DIR CHANGE_DIR`: how an answer-only change is judged (S-054). Each folder holds one
// `sandscope eval --corpus … --questions … --json --rows` output per corpus (NAME.json), written before and after the
// change. It prints, pooled over the corpora both hold: whether every question's verdict and rating stayed the same
// (an answer-only change must not touch the decision), answered procedure questions that carry every labelled step,
// and answered answerable questions that cite their labelled source; and the pooled false answers and false refusals,
// which an answer-only change must leave alone and a retrained model is judged on. Aggregates only: no question is shown.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from 'sandscope/user-error';
import { answerChange, readAnswerRun } from './answers.ts';
import { runScript } from './script-boundary.ts';

await runScript('eval:answers', async () => {
  const [base, change] = process.argv.slice(2);
  if (!base || !change || !existsSync(base) || !existsSync(change))
    throw new UserError('name two folders of `sandscope eval --corpus … --json --rows` outputs: npm run -s eval:answers -- BASE_DIR CHANGE_DIR');
  const files = readdirSync(base).filter((f) => f.endsWith('.json') && existsSync(join(change, f)));
  if (!files.length) throw new UserError(`${base} and ${change} hold no NAME.json in common.`);
  const r = answerChange(files.map((f) => [readAnswerRun(base, f), readAnswerRun(change, f)] as const));
  console.log(`${r.corpora} corpora, ${r.questions} questions: verdict or rating changed on ${r.changed}`);
  console.log(
    `answered procedure questions carrying every labelled step: ${r.before.everyStep} of ${r.before.procedure} → ${r.after.everyStep} of ${r.after.procedure}`,
  );
  console.log(`answered answerable questions citing their labelled source: ${r.before.right} of ${r.before.sourced} → ${r.after.right} of ${r.after.sourced}`);
  console.log(`false answers: ${r.before.falseAnswers} of ${r.before.unanswerable} → ${r.after.falseAnswers} of ${r.after.unanswerable}`);
  console.log(`false refusals: ${r.before.falseRefusals} of ${r.before.answerable} → ${r.after.falseRefusals} of ${r.after.answerable}`);
});
