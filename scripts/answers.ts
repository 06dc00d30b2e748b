// What `npm run eval:answers` counts (answer-change.ts), apart from its command line so it can be tested: an
// answer-only change is judged on whether every verdict and rating stayed, and on two pooled answer figures; a
// change of model (the same decision retrained) on the pooled false answers and false refusals as well.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from 'sandscope/user-error';

/** The part of one `sandscope eval --corpus … --json --rows` output an answer-only judgement reads. */
export interface AnswerRun {
  readonly procedureAnswers: number;
  readonly stepsCoveredRate: number | null;
  readonly questions?: readonly {
    id: string;
    label?: 'answerable' | 'unanswerable';
    verdict: string;
    answerability: number | null;
    source: 'right' | 'wrong' | 'unknown' | null;
  }[];
}

/** One corpus's run from a folder, or a UserError that names the file and says how to write it again. */
export function readAnswerRun(dir: string, file: string): AnswerRun & { questions: NonNullable<AnswerRun['questions']> } {
  const path = join(dir, file);
  let run: AnswerRun;
  try {
    run = JSON.parse(readFileSync(path, 'utf8')) as AnswerRun;
  } catch {
    throw new UserError(
      `${path} is not a whole JSON report (a run cut short?): write it again with \`sandscope eval --corpus … --questions … --json --rows > ${path}\`.`,
    );
  }
  if (!Array.isArray(run.questions)) throw new UserError(`${path} has no rows: write it with \`sandscope eval … --json --rows\`.`);
  return run as AnswerRun & { questions: NonNullable<AnswerRun['questions']> };
}

export interface AnswerTotals {
  /** Answered procedure questions whose labelled section has steps. */
  readonly procedure: number;
  /** Of those, the answers that carry every step. */
  readonly everyStep: number;
  /** Answered answerable questions. */
  readonly sourced: number;
  /** Of those, the answers citing it. */
  readonly right: number;
  /** Unanswerable questions, and those answered anyway (partial counts as answered, as the evaluation counts it). */
  readonly unanswerable: number;
  readonly falseAnswers: number;
  /** Answerable questions, and those refused. */
  readonly answerable: number;
  readonly falseRefusals: number;
}

export interface AnswerChange {
  readonly corpora: number;
  readonly questions: number;
  /** Questions whose id, verdict or rating differ between the two runs (an answer-only change must have none). */
  readonly changed: number;
  readonly before: AnswerTotals;
  readonly after: AnswerTotals;
}

function totals(runs: readonly AnswerRun[]): AnswerTotals {
  const rows = runs.flatMap((r) => r.questions ?? []);
  return {
    procedure: runs.reduce((s, r) => s + r.procedureAnswers, 0),
    everyStep: runs.reduce((s, r) => s + Math.round(r.procedureAnswers * (r.stepsCoveredRate ?? 0)), 0),
    sourced: rows.filter((q) => q.source !== null).length,
    right: rows.filter((q) => q.source === 'right').length,
    unanswerable: rows.filter((q) => q.label === 'unanswerable').length,
    falseAnswers: rows.filter((q) => q.label === 'unanswerable' && q.verdict !== 'refused').length,
    answerable: rows.filter((q) => q.label === 'answerable').length,
    falseRefusals: rows.filter((q) => q.label === 'answerable' && q.verdict === 'refused').length,
  };
}

/** The same corpora run before and after a change, paired by corpus name. */
export function answerChange(pairs: readonly (readonly [AnswerRun, AnswerRun])[]): AnswerChange {
  let questions = 0;
  let changed = 0;
  for (const [b, c] of pairs) {
    const after = c.questions ?? [];
    (b.questions ?? []).forEach((q, i) => {
      questions++;
      const d = after[i];
      if (!d || d.id !== q.id || d.verdict !== q.verdict || d.answerability !== q.answerability) changed++;
    });
    changed += Math.max(0, after.length - (b.questions ?? []).length);
  }
  return { corpora: pairs.length, questions, changed, before: totals(pairs.map((p) => p[0])), after: totals(pairs.map((p) => p[1])) };
}
