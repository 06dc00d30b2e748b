// `npm run -s eval:phrasal-share -- LABEL=ROWS.json[,ROWS.json…] [LABEL=…]`: whether questions typed with a phrasal
// verb are refused more than the rest. S-199 asked it of five corpora's phrasal-verb questions, written to a brief that
// asked for one in every question (docs/experiments/2026-12-07-phrasal-brief.md), and found them refused about twelve
// points more than the same corpora's own questions; three readings of the verb moved nothing (ADR-0013). This splits
// questions nobody wrote for the class: each file is the output of `sandscope eval … --json --rows`, and each label's
// files are pooled. Counts only; no question is printed, so it reads no corpus's errors.
import { readFileSync } from 'node:fs';
import { isStopword, words } from '@sandscope/engine';
import { z } from 'zod';
import { UserError } from 'sandscope/user-error';
import { runScript } from './script-boundary.ts';

/**
 * The particles that make a verb phrasal and are no preposition of place as often: "pile up", "go down", "time out",
 * "cut off", "fail over", "roll back". "in" and "on" are left out: "running in production", "pods on node-3" are
 * prepositions far more often than particles, and would make the class every question.
 */
const PARTICLES = new Set(['up', 'down', 'out', 'off', 'over', 'back']);

/** A word that is no stopword followed by a particle, as the engine's tokenizer reads the question. */
function hasPhrasalVerb(question: string): boolean {
  const ws = words(question);
  return ws.some((w, i) => i + 1 < ws.length && PARTICLES.has(ws[i + 1]!) && /^[a-z]{2,}$/.test(w) && !isStopword(w));
}

const rowsSchema = z.object({
  questions: z.array(z.object({ question: z.string(), label: z.enum(['answerable', 'unanswerable']), verdict: z.string() })),
});

interface Tally {
  n: number;
  answered: number;
}

function line(label: string, kind: string, answerable: Tally, unanswerable: Tally): string {
  const pct = (a: number, b: number) => (b ? `${((100 * a) / b).toFixed(1)}%` : '—');
  const refused = answerable.n - answerable.answered;
  return `${label}\t${kind}\tfalse refusals ${refused} of ${answerable.n} (${pct(refused, answerable.n)})\tfalse answers ${unanswerable.answered} of ${unanswerable.n} (${pct(unanswerable.answered, unanswerable.n)})`;
}

await runScript('eval:phrasal-share', async () => {
  const args = process.argv.slice(2);
  if (!args.length || args.some((a) => !/^[^=]+=.+/.test(a)))
    throw new UserError('give LABEL=ROWS.json[,ROWS.json…] for each group, each file the output of `sandscope eval … --json --rows`.');
  for (const arg of args) {
    const [label, files] = [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1).split(',')];
    const tally = {
      phrasal: { answerable: { n: 0, answered: 0 }, unanswerable: { n: 0, answered: 0 } },
      other: { answerable: { n: 0, answered: 0 }, unanswerable: { n: 0, answered: 0 } },
    };
    for (const file of files) {
      let json: unknown;
      try {
        json = JSON.parse(readFileSync(file, 'utf8'));
      } catch (error) {
        throw new UserError(`${file} could not be read as JSON (${(error as Error).message}): give the output of \`sandscope eval … --json --rows\`.`);
      }
      const parsed = rowsSchema.safeParse(json);
      if (!parsed.success) throw new UserError(`${file} holds no question rows: make it with \`sandscope eval … --json --rows\`.`);
      for (const q of parsed.data.questions) {
        const t = tally[hasPhrasalVerb(q.question) ? 'phrasal' : 'other'][q.label];
        t.n += 1;
        if (q.verdict !== 'refused') t.answered += 1;
      }
    }
    console.log(line(label, 'phrasal verb', tally.phrasal.answerable, tally.phrasal.unanswerable));
    console.log(line(label, 'other', tally.other.answerable, tally.other.unanswerable));
  }
});
