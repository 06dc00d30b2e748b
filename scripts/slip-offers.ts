// `npm run -s eval:offers -- CORPORA_DIR TYPED_DIR [--exclude a,b]`: what a refusal offers a person who mistyped (S-179).
// For each corpus in CORPORA_DIR with a questions.jsonl and a typed set TYPED_DIR/NAME.jsonl (`npm run -s eval:typos`),
// it asks every typed question and every clean one as `ask` does, and prints, pooled: of the typed questions refused
// whose slip was not read, how many refusals offer a word for it and how many of those offer the word that was typed
// wrong; and how many refusals of the clean questions offer a word at all (an offer there is at best noise). Then (S-180)
// each such refusal asked again with the first question it offers (the question with the slip replaced): how many are
// answered, beside the clean question's own verdict, by label; and the same for the clean refusals that offer one.
// Aggregates only: no question, verdict or reason is shown.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { askAgainQuestions, stem } from '@sandscope/engine';
import { parseQuestionsJsonl } from '@sandscope/eval';
import { knowledgeBaseOf, loadCorpusSource } from 'sandscope/corpus';
import { UserError } from 'sandscope/user-error';
import { runScript } from './script-boundary.ts';

await runScript('eval:offers', async () => {
  const args = process.argv.slice(2);
  const at = args.indexOf('--exclude');
  const excluded = new Set(at >= 0 ? (args[at + 1] ?? '').split(',').filter(Boolean) : []);
  const [corpora, typedDir] = at < 0 ? args : args.filter((_, i) => i !== at && i !== at + 1);
  if (!corpora || !typedDir || !existsSync(corpora) || !existsSync(typedDir))
    throw new UserError('usage: npm run -s eval:offers -- CORPORA_DIR TYPED_DIR [--exclude a,b] (TYPED_DIR/NAME.jsonl from npm run -s eval:typos)');
  const t = { corpora: 0, typed: 0, refused: 0, read: 0, unread: 0, offered: 0, offeredTheWord: 0, clean: 0, cleanRefused: 0, cleanOffered: 0 };
  // S-180: the refused typed questions asked again with the first question their refusal offers, against the clean question.
  const again = { asked: 0, theClean: 0, answerable: 0, answered: 0, cleanAnswered: 0, unanswerable: 0, falseAnswers: 0, cleanFalseAnswers: 0 };
  // …and the clean refusals that offer a word (noise): what asking again with it does.
  const noise = { asked: 0, answerable: 0, answered: 0, unanswerable: 0, falseAnswers: 0 };
  for (const name of readdirSync(corpora).sort()) {
    const dir = join(corpora, name);
    const typedFile = join(typedDir, `${name}.jsonl`);
    if (excluded.has(name) || !existsSync(join(dir, 'questions.jsonl')) || !existsSync(typedFile)) continue;
    const kb = await knowledgeBaseOf(loadCorpusSource(dir), { shippedBands: true });
    const clean = parseQuestionsJsonl(readFileSync(join(dir, 'questions.jsonl'), 'utf8')).questions;
    const typed = parseQuestionsJsonl(readFileSync(typedFile, 'utf8')).questions;
    if (typed.length !== clean.length)
      throw new UserError(`${typedFile} holds ${typed.length} questions, ${dir} ${clean.length}: write it again with eval:typos.`);
    t.corpora++;
    for (let i = 0; i < clean.length; i++) {
      const asked = await kb.examine(clean[i]!.question);
      t.clean++;
      if (asked.verdict === 'refused') {
        t.cleanRefused++;
        if (asked.features.nearMisses.length) t.cleanOffered++;
        const offered = askAgainQuestions(clean[i]!.question, asked.features.nearMisses)[0];
        if (offered) {
          noise.asked++;
          const answered = (await kb.examine(offered)).verdict !== 'refused';
          if (clean[i]!.label === 'answerable') {
            noise.answerable++;
            if (answered) noise.answered++;
          } else {
            noise.unanswerable++;
            if (answered) noise.falseAnswers++;
          }
        }
      }
      const slip = slipOf(clean[i]!.question, typed[i]!.question);
      if (!slip) continue;
      t.typed++;
      const exam = await kb.examine(typed[i]!.question);
      if (exam.verdict !== 'refused') continue;
      t.refused++;
      if (exam.features.respellings.some((r) => r.written === slip.typed)) {
        t.read++;
        continue;
      }
      t.unread++;
      const offer = exam.features.nearMisses.find((n) => n.written === slip.typed);
      if (!offer) continue;
      t.offered++;
      if (offer.library.some((w) => stem(w) === stem(slip.meant.toLowerCase()))) t.offeredTheWord++;
      const offered = askAgainQuestions(typed[i]!.question, exam.features.nearMisses);
      if (!offered[0]) continue;
      again.asked++;
      if (offered.includes(clean[i]!.question)) again.theClean++;
      const answered = (await kb.examine(offered[0])).verdict !== 'refused';
      const cleanAnswered = asked.verdict !== 'refused';
      if (clean[i]!.label === 'answerable') {
        again.answerable++;
        if (answered) again.answered++;
        if (cleanAnswered) again.cleanAnswered++;
      } else {
        again.unanswerable++;
        if (answered) again.falseAnswers++;
        if (cleanAnswered) again.cleanFalseAnswers++;
      }
    }
  }
  console.log(`${t.corpora} corpora, ${t.typed} questions with one slip: ${t.refused} refused, ${t.read} of them with the slip read`);
  console.log(
    `refused with the slip left as typed: ${t.unread}; the refusal offers a word for it: ${t.offered}, the word typed wrong among them: ${t.offeredTheWord}`,
  );
  console.log(`clean questions: ${t.clean}, refused ${t.cleanRefused}, of which a refusal offers a word: ${t.cleanOffered}`);
  console.log(
    `asked again with the first question offered (S-180): ${again.asked}, the clean question among those offered for ${again.theClean}; answerable ${again.answerable}, answered ${again.answered} (the clean question ${again.cleanAnswered}); unanswerable ${again.unanswerable}, answered ${again.falseAnswers} (the clean question ${again.cleanFalseAnswers})`,
  );
  console.log(
    `clean refusals asked again with the first question offered: ${noise.asked}; answerable ${noise.answerable}, answered ${noise.answered}; unanswerable ${noise.unanswerable}, answered ${noise.falseAnswers}`,
  );
});

/** The one word `typed` wrote differently from `clean` (eval:typos slips one word and keeps every other character). */
function slipOf(clean: string, typed: string): { meant: string; typed: string } | null {
  if (clean === typed) return null;
  const a = clean.split(/([^A-Za-z]+)/);
  const b = typed.split(/([^A-Za-z]+)/);
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return { meant: a[i]!, typed: b[i]! };
  return null;
}
