import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { EvalQuestionRow } from '@sandscope/api/evaluation';
import { type Database, latestEvalRun } from '@sandscope/store';

export interface EvalLatestView {
  /** The evaluation's report (`sandscope eval --json`) without its per-question rows. */
  readonly summary: unknown;
  readonly questions: EvalQuestionRow[];
  /** Where it was read from: the newest `eval_run` row, or the committed report file. */
  readonly source: 'database' | 'file';
}

/**
 * The newest evaluation: the latest `eval_run` row, else the report committed
 * at `docs/evaluation.json`, else null (the route answers 404 with how to make one).
 */
export async function readLatestEvaluation(db: Database, reportPath: string): Promise<EvalLatestView | null> {
  const row = await latestEvalRun(db);
  if (row) return split(row.summary, 'database');
  if (!existsSync(reportPath)) return null;
  return split(JSON.parse(await readFile(reportPath, 'utf8')) as unknown, 'file');
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
