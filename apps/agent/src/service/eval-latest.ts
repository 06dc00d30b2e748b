import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { EvalQuestionRow } from '@sandscope/api/evaluation';
import {
  type AnswersNotAnswering,
  parseJsonl,
  type ReplayedReaderGroup,
  replayedReaderGroups,
  replayedReaderSchema,
  type SourceAudit,
  SourceJudgement,
  sourceAuditOf,
} from '@sandscope/eval';
import { type Database, latestEvalRun } from '@sandscope/store';

export interface EvalLatestView {
  /** The evaluation's report (`sandscope eval --json`) without its per-question rows. */
  readonly summary: unknown;
  readonly questions: EvalQuestionRow[];
  /** Where it was read from: the newest `eval_run` row, or the committed report file. */
  readonly source: 'database' | 'file';
  /** A reader measured with recorded judgements (`npm run reader:replay`), per group pooled; absent when there is no readable summary. */
  readonly replayedReader?: {
    readonly generatedAt: string;
    readonly command: string;
    /** What changed in the offline decision since it was printed, when it was not printed again. */
    readonly notRemeasuredSince?: string;
    readonly groups: readonly ReplayedReaderGroup[];
  };
  /** The source audit of this record's wrong-source answers and the trust figure it makes; absent when none of them is judged. */
  readonly sourceAudit?: SourceAudit & AnswersNotAnswering;
}

/** The replayed reader's summary, found where the repository keeps it relative to the report: docs/experiments/adjudicator-replay/. */
const replayedReaderPath = (reportPath: string) => join(dirname(reportPath), 'experiments', 'adjudicator-replay', 'summary.json');

/** The source audit's judgements, where the repository keeps them relative to the report: docs/experiments/source-audit/. */
const sourceJudgementsPath = (reportPath: string) => join(dirname(reportPath), 'experiments', 'source-audit', 'judgements.jsonl');

/**
 * The newest evaluation: the latest `eval_run` row, else the report committed
 * at `docs/evaluation.json`, else null (the route answers 404 with how to make one).
 * With either, the replayed reader's summary beside the report file when there is one: a summary that cannot be
 * read is left out and `log` says which file and why, so the evaluation still loads.
 */
export async function readLatestEvaluation(db: Database, reportPath: string, log: (line: string) => void): Promise<EvalLatestView | null> {
  const row = await latestEvalRun(db);
  const latest = row
    ? split(row.summary, 'database')
    : existsSync(reportPath)
      ? split(JSON.parse(await readFile(reportPath, 'utf8')) as unknown, 'file')
      : null;
  if (!latest) return null;
  const replayedReader = await readReplayedReader(replayedReaderPath(reportPath), log);
  const sourceAudit = await readSourceAudit(sourceJudgementsPath(reportPath), latest.questions, log);
  return { ...latest, ...(replayedReader ? { replayedReader } : {}), ...(sourceAudit ? { sourceAudit } : {}) };
}

/** A file kept beside the report: its text, or null when it is not there, or when it cannot be read (`log` says why, and that `what` is left out). */
async function readBeside(path: string, what: string, log: (line: string) => void): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      log(`eval latest: ${path} could not be read (${error instanceof Error ? error.message : String(error)}); ${what} is left out`);
    return null;
  }
}

/**
 * The audit counted against the record being served: a judgement counts only while the record cites the passages it
 * saw (`auditSources`), so a newer evaluation in the database shows only what still holds, or nothing. A file that
 * cannot be read is left out whole, and `log` says which line and why: counts from half of it would not be the audit's.
 */
async function readSourceAudit(
  path: string,
  questions: readonly EvalQuestionRow[],
  log: (line: string) => void,
): Promise<(SourceAudit & AnswersNotAnswering) | null> {
  const text = await readBeside(path, 'the source audit', log);
  if (text === null) return null;
  const parsed = parseJsonl(text, SourceJudgement, 'source judgement');
  if ('why' in parsed) {
    log(`eval latest: ${path}:${parsed.line}: ${parsed.why}; the source audit is left out`);
    return null;
  }
  const rows = questions.map((q) => ({
    id: q.id,
    corpus: q.corpus ?? '',
    label: q.label ?? '',
    verdict: q.verdict ?? '',
    source: q.source ?? null,
    cited: Array.isArray(q.cited) ? q.cited.filter((c): c is string => typeof c === 'string') : null,
  }));
  return sourceAuditOf(rows, parsed.rows);
}

async function readReplayedReader(path: string, log: (line: string) => void): Promise<EvalLatestView['replayedReader'] | null> {
  const text = await readBeside(path, 'the replayed reader', log);
  if (text === null) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    log(`eval latest: ${path} is not JSON (${error instanceof Error ? error.message : String(error)}); the replayed reader is left out`);
    return null;
  }
  const parsed = replayedReaderSchema.safeParse(raw);
  if (!parsed.success) {
    const why = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    log(`eval latest: ${path} is not a replayed-reader summary (${why}); the replayed reader is left out`);
    return null;
  }
  const r = parsed.data;
  return {
    generatedAt: r.generatedAt,
    command: r.command,
    ...(r.notRemeasuredSince ? { notRemeasuredSince: r.notRemeasuredSince } : {}),
    groups: replayedReaderGroups(r),
  };
}

function split(report: unknown, source: EvalLatestView['source']): EvalLatestView {
  if (typeof report !== 'object' || report === null || !Array.isArray((report as { questions?: unknown }).questions)) {
    return { summary: report, questions: [], source };
  }
  const { questions, ...summary } = report as { questions: Record<string, unknown>[] };
  return { summary, questions: questions.map(row), source };
}

const SOURCES = ['right', 'wrong', 'unknown'] as const;

/**
 * One row as the contract (`evalQuestionRowSchema`, packages/api) carries it: the documented fields always
 * present and normalised, so a row recorded before the answerability model reads as one with no answerability
 * rather than as garbage; anything else the evaluation recorded passes through as it is.
 */
function row(q: Record<string, unknown>): EvalQuestionRow {
  const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  const p = num(q.answerability);
  return {
    ...q,
    id: String(q.id ?? ''),
    corpus: String(q.corpus ?? ''),
    question: String(q.question ?? ''),
    label: String(q.label ?? ''),
    mechanism: String(q.mechanism ?? ''),
    band: String(q.band ?? ''),
    verdict: String(q.verdict ?? ''),
    answerability: p !== null && p >= 0 && p <= 1 ? p : null,
    adjudicable: q.adjudicable === true,
    score: num(q.score),
    source: SOURCES.find((s) => s === q.source) ?? null,
    rank: num(q.rank),
  };
}
