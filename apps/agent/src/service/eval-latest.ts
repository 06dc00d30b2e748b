import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { type Database, latestEvalRun } from '@sandscope/store';

/**
 * One row of `GET /v1/eval/latest`'s `questions`: what the website's threshold
 * slider replays. The documented fields are always present (normalised); every
 * other decision feature the evaluation recorded is passed through as it is, so
 * the slider can replay the verdict exactly as the gate decided it.
 */
export interface EvalQuestionRow {
  readonly id: string;
  readonly question: string;
  readonly label: string;
  readonly mechanism: string;
  readonly score: number | null;
  readonly coverage: number;
  readonly band: string;
  readonly verdict: string;
  readonly downgrade: boolean;
  readonly carrierConcentration: number;
  readonly [feature: string]: unknown;
}

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

function row(q: Record<string, unknown>): EvalQuestionRow {
  const num = (v: unknown) => (typeof v === 'number' ? v : null);
  return {
    ...q,
    id: String(q.id ?? ''),
    question: String(q.question ?? ''),
    label: String(q.label ?? ''),
    mechanism: String(q.mechanism ?? ''),
    score: num(q.score),
    coverage: num(q.coverage) ?? 0,
    band: String(q.band ?? ''),
    verdict: String(q.verdict ?? ''),
    downgrade: q.downgrade === true,
    carrierConcentration: num(q.carrierConcentration) ?? 0,
  };
}
