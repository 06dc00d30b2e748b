import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EvaluationReport, PreviousGate, ReportExtras } from '@sandscope/eval';
import { everyFirstRun } from './corpora.ts';

/** docs/evaluation.json: the leave-one-corpus-out report of record and what `npm run eval:report` measured beside it. */
export type Recorded = EvaluationReport & {
  generatedAt: string;
  excluded: string[];
  askP50Ms: number;
  generated: Omit<EvaluationReport, 'questions'>;
};

export const readRecord = (root: string) => JSON.parse(readFileSync(join(root, 'docs/evaluation.json'), 'utf8')) as Recorded;

export const reportCommand = (exclude: readonly string[]) => `npm run eval:report${exclude.length ? ` -- --exclude ${exclude.join(',')}` : ''}`;

/** The previous gate's record, when there is one: "before" beside the headline's "after". */
export function previousGate(root: string): { previous?: PreviousGate } {
  const path = join(root, 'docs/previous-gate.json');
  return existsSync(path) ? { previous: JSON.parse(readFileSync(path, 'utf8')) as PreviousGate } : {};
}

/**
 * What docs/EVALUATION.md and the README block print beside the record, read from the repo as it is: the one
 * definition `npm run eval:report -- --render` writes them with and scripts/eval-record.test.ts checks them against.
 */
export function renderExtras(root: string, recorded: Recorded): ReportExtras {
  return {
    ...previousGate(root),
    firstRuns: everyFirstRun(root),
    generated: { ...recorded.generated, questions: [] },
    askP50Ms: recorded.askP50Ms,
    generatedAt: recorded.generatedAt,
    command: reportCommand(recorded.excluded),
  };
}
