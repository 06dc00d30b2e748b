import type { Verdict } from '@sandscope/engine';
import type { Database, Queryable } from './database.ts';
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
  /**
   * The id of the passage that answers the run's question, as the person named it (S-286); null or absent: none named.
   * A passage id, not a quotation: the caller holds the library, and matches a quotation to its passage first
   * (apps/agent's mark-evidence.ts).
   */
  readonly evidence?: string | null;
}

/** The one mark a run carries. */
export interface FeedbackRecord {
  readonly runId: string;
  readonly label: FeedbackLabel;
  readonly note: string | null;
  /** The passage that answers, as the person named it (S-286); null when they named none. */
  readonly evidence: string | null;
  /** When this mark was made: marking again replaces the mark and its time. */
  readonly createdAt: string;
}

/** A mark another one replaced, as it was: what marking again says it replaced (S-289). */
export type EarlierMark = Omit<FeedbackRecord, 'runId'>;

/** A mark as made, with the mark it replaced (null: the run had none). */
export interface MarkedRun extends FeedbackRecord {
  /**
   * The run's mark before this one. Marking again replaces a mark, as documented; it replaced a colleague's without a
   * word (S-289), so every door now says what it replaced.
   */
  readonly replaced: EarlierMark | null;
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
  evidence: string | null;
  created_at: Date;
}

const toRecord = (r: FeedbackRow): FeedbackRecord => ({
  runId: r.run_id,
  label: r.label,
  note: r.note,
  evidence: r.evidence,
  createdAt: iso(r.created_at),
});
const COLUMNS = 'run_id::text, label, note, evidence, created_at';

/**
 * Marks a run, replacing any mark it had: one mark per run, the latest word
 * wins, and it lists as the newest (a fresh seq). Refused for a run that does
 * not exist and for one without a verdict (still running, failed, interrupted):
 * there is nothing to judge, and the mark could not become a labelled question.
 * Refused too for a label its verdict contradicts (`mark_contradicts_verdict`): every door (the CLI, the API and so
 * the website) marks through here.
 *
 * The passage that answers (`evidence`, S-286) is refused on a `right` refusal (a refusal that was right says no
 * passage answers) and, on a `right` answer, unless the run cited it (`evidence_not_cited`): `right` with a passage
 * confirms the run's source, and an answer from another passage than the one that answers is a `wrong-answer` naming
 * that passage — stored as `right`, it became a question scored right source by construction while it was not.
 *
 * The run's row is locked first, so two marks of one run made at once are taken one after the other and each says
 * which mark it replaced (S-289): the earlier mark is read after the lock, as the last one committed. A mark's time is
 * when it is written (clock_timestamp), not when its transaction began: one that waited for the lock is the later.
 *
 * A `wrong-answer` mark also withdraws the run's cached answers (migration 0029, S-263), in the same statement as the
 * mark: each `cacheKey` its spans record (the semantic cache entry a draft was served from or stored under) with the
 * mark's time, so no replica serves an answer cached under it before the mark (cache-withdrawal-repository.ts) even
 * where the cache could not be reached to evict it. One statement, so a mark is never kept without its withdrawal.
 */
export async function markRun(db: Database, feedback: NewFeedback): Promise<MarkedRun> {
  const runId = requireUuid(feedback.runId, 'run id');
  const { label, note } = normalizeFeedback(feedback.label, feedback.note);
  const evidence = normalizeEvidence(feedback.evidence);
  return db.transaction(async (tx) => {
    const [run] = await tx.query<{ status: string; verdict: Verdict | null }>('select status, verdict from run where id = $1 for update', [runId]);
    if (!run) throw new StoreError('run_not_found', `run ${runId} does not exist`);
    if (run.verdict === null) throw new StoreError('run_without_verdict', `run ${runId} is ${run.status} and has no verdict`);
    if (CONTRADICTED[label].includes(run.verdict)) {
      const says = label === 'wrong-refusal' ? 'it refused what the library answers' : 'it answered what the library cannot answer';
      throw new StoreError(
        'mark_contradicts_verdict',
        `run ${runId} ${run.verdict}, and ${label} says ${says}: a run that ${run.verdict} is marked ${labelsFitting(run.verdict).join(' or ')}`,
      );
    }
    if (evidence !== null && label === 'right') await checkConfirmedSource(tx, runId, run.verdict, evidence);
    const [earlier] = await tx.query<FeedbackRow>(`select ${COLUMNS} from feedback where run_id = $1`, [runId]);
    const [row] = await tx.query<FeedbackRow>(
      `with marked as (
         insert into feedback (run_id, label, note, evidence, created_at)
         values ($1, $2, $3, $4, clock_timestamp())
         on conflict (run_id) do update
           set label = excluded.label, note = excluded.note, evidence = excluded.evidence, created_at = excluded.created_at, seq = default
         returning run_id, label, note, evidence, created_at
       ), withdrawn as (
         insert into cache_withdrawal (cache_key, withdrawn_at, run_id)
         select distinct s.attributes->>'cacheKey', m.created_at, m.run_id
         from marked m join span s on s.run_id = m.run_id
         where m.label = 'wrong-answer' and jsonb_typeof(s.attributes->'cacheKey') = 'string'
         on conflict (cache_key) do update
           set withdrawn_at = greatest(cache_withdrawal.withdrawn_at, excluded.withdrawn_at), run_id = excluded.run_id
       )
       select ${COLUMNS} from marked`,
      [runId, label, note, evidence],
    );
    const replaced = earlier ? { label: earlier.label, note: earlier.note, evidence: earlier.evidence, createdAt: iso(earlier.created_at) } : null;
    return { ...toRecord(row!), replaced };
  });
}

/** The passage id as it will be stored: trimmed; blank or absent is none. */
function normalizeEvidence(evidence: unknown): string | null {
  if (evidence === undefined || evidence === null) return null;
  if (typeof evidence !== 'string') throw new StoreError('invalid_argument', 'evidence must be text: the id of the passage that answers');
  const trimmed = evidence.trim();
  return trimmed === '' ? null : trimmed;
}

/**
 * `right` naming a passage confirms the run's source: refused on a refusal (no passage answers a question rightly
 * refused) and on an answer that did not cite it.
 */
async function checkConfirmedSource(tx: Queryable, runId: string, verdict: Verdict, evidence: string): Promise<void> {
  if (verdict === 'refused') {
    throw new StoreError(
      'mark_contradicts_verdict',
      `run ${runId} refused, and right with the passage that answers (${evidence}) says the library answers it: a refusal of what the library answers is marked wrong-refusal, with that passage`,
    );
  }
  const cited = (
    await tx.query<{ chunk_id: string }>('select chunk_id from citation where run_id = $1 group by chunk_id order by min(claim_index), min(id)', [runId])
  ).map((r) => r.chunk_id);
  if (cited.includes(evidence)) return;
  throw new StoreError(
    'evidence_not_cited',
    `run ${runId} ${cited.length ? `cited ${cited.join(', ')}, not ${evidence}` : `cited no passage, so not ${evidence}`}: right with a passage confirms the one the run answered from. An answer from another passage than the one that answers is marked wrong-answer, with that passage`,
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
  const [row] = await db.query<FeedbackRow>(`select ${COLUMNS} from feedback where run_id = $1`, [runId]);
  return row ? toRecord(row) : null;
}

/** Every mark with its run's question, verdict and cited chunks, newest first. */
export async function listFeedback(db: Queryable): Promise<FeedbackMark[]> {
  const rows = await db.query<FeedbackRow & { question: string; verdict: Verdict; cited: string[] | null }>(
    `select f.run_id::text, f.label, f.note, f.evidence, f.created_at, r.question, r.verdict,
       (select array_agg(x.chunk_id order by x.claim_index, x.id) from citation x where x.run_id = f.run_id) as cited
     from feedback f join run r on r.id = f.run_id
     order by f.created_at desc, f.seq desc`,
  );
  return rows.map((r) => ({ ...toRecord(r), question: r.question, verdict: r.verdict, citedChunkIds: [...new Set(r.cited ?? [])] }));
}
