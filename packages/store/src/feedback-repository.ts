import type { Verdict } from '@sandscope/engine';
import type { Queryable } from './database.ts';
import { CONTRADICTED, FEEDBACK_LABELS, type FeedbackLabel, labelsFitting } from './feedback-fit.ts';
import { StoreError } from './store-error.ts';
import { iso, isUuid, requireUuid } from './values.ts';

export { FEEDBACK_LABELS, type FeedbackLabel, labelsFitting } from './feedback-fit.ts';

/** The longest note, in characters (code points, as Postgres's char_length counts them). */
export const MAX_FEEDBACK_NOTE_CHARS = 2000;

export interface NewFeedback {
  readonly runId: string;
  readonly label: FeedbackLabel;
  /** Trimmed; an empty note is no note. */
  readonly note?: string | null;
}

/** The one mark a run carries. */
export interface FeedbackRecord {
  readonly runId: string;
  readonly label: FeedbackLabel;
  readonly note: string | null;
  /** When this mark was made: marking again replaces the mark and its time. */
  readonly createdAt: string;
}

/** A mark with what it judged: the question, the run's verdict and the passages it cited — what a question set needs. */
export interface FeedbackMark extends FeedbackRecord {
  readonly question: string;
  /** Never null: only a run with a verdict can be marked. */
  readonly verdict: Verdict;
  /** Each chunk the run's claims cited, once, in claim order. */
  readonly citedChunkIds: string[];
}

export function isFeedbackLabel(value: unknown): value is FeedbackLabel {
  return typeof value === 'string' && (FEEDBACK_LABELS as readonly string[]).includes(value);
}

/**
 * The label and note as they will be stored, or a StoreError naming what is
 * wrong. Exported so every door (HTTP, CLI) refuses the same inputs with the
 * same words before it reaches the CHECK constraints.
 */
export function normalizeFeedback(label: unknown, note: unknown): { label: FeedbackLabel; note: string | null } {
  if (!isFeedbackLabel(label)) {
    throw new StoreError('invalid_argument', `label ${JSON.stringify(label)} is not one of ${FEEDBACK_LABELS.join(', ')}`);
  }
  if (note !== undefined && note !== null && typeof note !== 'string') throw new StoreError('invalid_argument', 'note must be text');
  const trimmed = typeof note === 'string' ? note.trim() : '';
  const length = [...trimmed].length;
  if (length > MAX_FEEDBACK_NOTE_CHARS) {
    throw new StoreError('invalid_argument', `the note is ${length} characters; the limit is ${MAX_FEEDBACK_NOTE_CHARS}`);
  }
  return { label, note: length === 0 ? null : trimmed };
}

interface FeedbackRow {
  run_id: string;
  label: FeedbackLabel;
  note: string | null;
  created_at: Date;
}

const toRecord = (r: FeedbackRow): FeedbackRecord => ({ runId: r.run_id, label: r.label, note: r.note, createdAt: iso(r.created_at) });

/**
 * Marks a run, replacing any mark it had: one mark per run, the latest word
 * wins, and it lists as the newest (a fresh seq). Refused for a run that does
 * not exist and for one without a verdict (still running, failed, interrupted):
 * there is nothing to judge, and the mark could not become a labelled question.
 * Refused too for a label its verdict contradicts (`mark_contradicts_verdict`): every door (the CLI, the API and so
 * the website) marks through here.
 */
export async function markRun(db: Queryable, feedback: NewFeedback): Promise<FeedbackRecord> {
  const runId = requireUuid(feedback.runId, 'run id');
  const { label, note } = normalizeFeedback(feedback.label, feedback.note);
  const [row] = await db.query<FeedbackRow>(
    `insert into feedback (run_id, label, note)
     select r.id, $2, $3 from run r where r.id = $1 and r.verdict is not null and r.verdict <> all($4::text[])
     on conflict (run_id) do update set label = excluded.label, note = excluded.note, created_at = now(), seq = default
     returning run_id::text, label, note, created_at`,
    [runId, label, note, CONTRADICTED[label]],
  );
  if (row) return toRecord(row);
  const [run] = await db.query<{ status: string; verdict: Verdict | null }>('select status, verdict from run where id = $1', [runId]);
  if (!run) throw new StoreError('run_not_found', `run ${runId} does not exist`);
  if (run.verdict === null) throw new StoreError('run_without_verdict', `run ${runId} is ${run.status} and has no verdict`);
  const says = label === 'wrong-refusal' ? 'it refused what the library answers' : 'it answered what the library cannot answer';
  throw new StoreError(
    'mark_contradicts_verdict',
    `run ${runId} ${run.verdict}, and ${label} says ${says}: a run that ${run.verdict} is marked ${labelsFitting(run.verdict).join(' or ')}`,
  );
}

/**
 * How many marks are on runs answered from each corpus version (`run.corpus_version`, the digest of the documents the
 * run read), most first: `eval --feedback` refuses to score marks on a library other than the runs' (S-210).
 */
export async function markedCorpusVersions(db: Queryable): Promise<{ corpusVersion: string; marks: number }[]> {
  const rows = await db.query<{ corpus_version: string; marks: number }>(
    `select r.corpus_version, count(*)::int as marks from feedback f join run r on r.id = f.run_id
     group by r.corpus_version order by marks desc, r.corpus_version`,
  );
  return rows.map((r) => ({ corpusVersion: r.corpus_version, marks: r.marks }));
}

/** A run's mark, or null (also for an id that is not a uuid). */
export async function getFeedback(db: Queryable, runId: string): Promise<FeedbackRecord | null> {
  if (!isUuid(runId)) return null;
  const [row] = await db.query<FeedbackRow>('select run_id::text, label, note, created_at from feedback where run_id = $1', [runId]);
  return row ? toRecord(row) : null;
}

/** Every mark with its run's question, verdict and cited chunks, newest first. */
export async function listFeedback(db: Queryable): Promise<FeedbackMark[]> {
  const rows = await db.query<FeedbackRow & { question: string; verdict: Verdict; cited: string[] | null }>(
    `select f.run_id::text, f.label, f.note, f.created_at, r.question, r.verdict,
       (select array_agg(x.chunk_id order by x.claim_index, x.id) from citation x where x.run_id = f.run_id) as cited
     from feedback f join run r on r.id = f.run_id
     order by f.created_at desc, f.seq desc`,
  );
  return rows.map((r) => ({ ...toRecord(r), question: r.question, verdict: r.verdict, citedChunkIds: [...new Set(r.cited ?? [])] }));
}
