import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  auditSources,
  type EvaluationReport,
  type PreviousGate,
  type ReplayedReader,
  type ReportExtras,
  replayedReaderSchema,
  type SourceAudit,
  SourceJudgement,
  wrongSources,
} from '@sandscope/eval';
import { corporaDir, everyFirstRun, statusOf } from './corpora.ts';
import { readJsonl } from './jsonl.ts';

/** docs/evaluation.json: the leave-one-corpus-out report of record and what `npm run eval:report` measured beside it. */
export type Recorded = EvaluationReport & {
  generatedAt: string;
  excluded: string[];
  askP50Ms: number;
  generated: Omit<EvaluationReport, 'questions'>;
};

/**
 * The seed of the record's typed questions (S-177). Seed 1 typed six seen corpora's questions for S-173's and S-174's
 * development, and seeds 2 and 3 judged them on the waiting corpora; 4 has typed nothing anyone has read.
 */
export const TYPED_SEED = 4;

export const readRecord = (root: string) => JSON.parse(readFileSync(join(root, 'docs/evaluation.json'), 'utf8')) as Recorded;

export const reportCommand = (exclude: readonly string[]) => `npm run eval:report${exclude.length ? ` -- --exclude ${exclude.join(',')}` : ''}`;

/** The previous gate's record, when there is one: "before" beside the headline's "after". */
export function previousGate(root: string): { previous?: PreviousGate } {
  const path = join(root, 'docs/previous-gate.json');
  return existsSync(path) ? { previous: JSON.parse(readFileSync(path, 'utf8')) as PreviousGate } : {};
}

/** A reader's figures from recorded judgements, when `npm run reader:replay -- … --write` has saved them. */
export function replayedReader(root: string): { replayedReader?: ReplayedReader } {
  const path = join(root, 'docs/experiments/adjudicator-replay/summary.json');
  return existsSync(path) ? { replayedReader: replayedReaderSchema.parse(JSON.parse(readFileSync(path, 'utf8'))) } : {};
}

/** Where the source audit's judgements are kept (`npm run eval:source-audit -- --record DIR` writes them). */
export const SOURCE_JUDGEMENTS = 'docs/experiments/source-audit/judgements.jsonl';

/** The source audit of the record's wrong-source answers, when a reader's judgements are kept. */
export function sourceAudit(root: string, recorded: Pick<Recorded, 'questions'>): { sourceAudit?: SourceAudit } {
  const path = join(root, SOURCE_JUDGEMENTS);
  return existsSync(path) ? { sourceAudit: auditSources(wrongSources(recorded.questions), readJsonl(path, SourceJudgement, 'source judgement')) } : {};
}

/**
 * What docs/EVALUATION.md and the README block print beside the record, read from the repo as it is: the one
 * definition `npm run eval:report -- --render` writes them with and scripts/eval-record.test.ts checks them against.
 */
export function renderExtras(root: string, recorded: Recorded): ReportExtras {
  return {
    ...previousGate(root),
    ...replayedReader(root),
    ...sourceAudit(root, recorded),
    firstRuns: everyFirstRun(root),
    generated: { ...recorded.generated, questions: [] },
    askP50Ms: recorded.askP50Ms,
    generatedAt: recorded.generatedAt,
    command: reportCommand(recorded.excluded),
  };
}

/**
 * The record with each corpus's status line as its README has it now. A status line is a word on who has read what,
 * not a figure: a correction to it belongs in the record at once (`npm run eval:report -- --render`), not at the next
 * half-hour run — a session's corrections once waited a day to reach docs/EVALUATION.md.
 */
export function withCurrentStatus(root: string, recorded: Recorded): Recorded {
  const dir = (name: string) => join(corporaDir(root), name);
  return { ...recorded, corpora: recorded.corpora.map((c) => (existsSync(dir(c.name)) ? { ...c, status: statusOf(dir(c.name)) } : c)) };
}
