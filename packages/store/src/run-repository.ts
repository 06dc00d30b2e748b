import { randomUUID } from 'node:crypto';
import type { Band, Terminal, Verdict } from '@sandscope/engine';
import type { Queryable } from './database.ts';
import { ownerAliveSql } from './owner-alive.ts';
import { FOREIGN_KEY_VIOLATION, postgresError, StoreError } from './store-error.ts';
import { iso, isUuid, json, requireUuid } from './values.ts';

export type RunStatus = 'running' | 'completed' | 'interrupted' | 'failed';

export interface NewRun {
  /** Defaults to a fresh uuid. */
  readonly id?: string;
  /** Set on an approval run: it points back at the gated run it approves (seed ADR-0006). */
  readonly parentRunId?: string | null;
  readonly sessionId: string;
  /** The process executing the run (its OwnerLease id). */
  readonly ownerId: string;
  readonly workload: string;
  readonly question: string;
  readonly corpusVersion: string;
}

/** What a list shows: no answer, result or risk bodies. */
export interface RunSummary {
  readonly id: string;
  readonly parentRunId: string | null;
  readonly sessionId: string;
  readonly ownerId: string;
  readonly workload: string;
  readonly question: string;
  readonly status: RunStatus;
  readonly terminal: Terminal | null;
  readonly verdict: Verdict | null;
  readonly band: Band | null;
  readonly costUsd: number;
  readonly createdAt: string;
  readonly finishedAt: string | null;
}

export interface RunRecord extends RunSummary {
  readonly score: number | null;
  readonly answer: string | null;
  readonly risk: unknown;
  readonly result: unknown;
  readonly error: string | null;
  readonly corpusVersion: string;
  readonly tokensIn: number;
  readonly tokensOut: number;
}

export interface SpanInput {
  readonly node: string;
  readonly kind: 'start' | 'end' | 'event';
  readonly durationMs?: number | null;
  /** Already filtered by the span exporter's allowlist (T-16); stored as given. */
  readonly attributes?: Record<string, unknown>;
  readonly at?: Date;
}

export interface SpanRecord {
  readonly seq: number;
  readonly node: string;
  readonly kind: 'start' | 'end' | 'event';
  readonly at: string;
  readonly durationMs: number | null;
  readonly attributes: Record<string, unknown>;
}

export interface RunOutcome {
  readonly status: 'completed' | 'failed';
  readonly terminal?: Terminal | null;
  readonly verdict?: Verdict | null;
  readonly band?: Band | null;
  readonly score?: number | null;
  readonly answer?: string | null;
  readonly risk?: unknown;
  readonly result?: unknown;
  readonly error?: string | null;
  readonly costUsd?: number;
  readonly tokensIn?: number;
  readonly tokensOut?: number;
}

export interface RunPage {
  readonly runs: RunSummary[];
  readonly total: number;
  readonly page: number;
  readonly pageSize: number;
}

export const MAX_PAGE_SIZE = 100;

const SUMMARY_COLUMNS = `id::text, parent_run_id::text, session_id, owner_id, workload, question, status, terminal, verdict,
  band, cost_usd::float8 as cost_usd, created_at, finished_at`;
const RECORD_COLUMNS = `${SUMMARY_COLUMNS}, score, answer, risk, result, error, corpus_version, tokens_in, tokens_out`;

interface SummaryRow {
  id: string;
  parent_run_id: string | null;
  session_id: string;
  owner_id: string;
  workload: string;
  question: string;
  status: RunStatus;
  terminal: Terminal | null;
  verdict: Verdict | null;
  band: Band | null;
  cost_usd: number;
  created_at: Date;
  finished_at: Date | null;
}

interface RecordRow extends SummaryRow {
  score: number | null;
  answer: string | null;
  risk: unknown;
  result: unknown;
  error: string | null;
  corpus_version: string;
  tokens_in: number;
  tokens_out: number;
}

export function toRunSummary(r: SummaryRow): RunSummary {
  return {
    id: r.id,
    parentRunId: r.parent_run_id,
    sessionId: r.session_id,
    ownerId: r.owner_id,
    workload: r.workload,
    question: r.question,
    status: r.status,
    terminal: r.terminal,
    verdict: r.verdict,
    band: r.band,
    costUsd: r.cost_usd,
    createdAt: iso(r.created_at),
    finishedAt: iso(r.finished_at),
  };
}

function toRunRecord(r: RecordRow): RunRecord {
  return {
    ...toRunSummary(r),
    score: r.score,
    answer: r.answer,
    risk: r.risk,
    result: r.result,
    error: r.error,
    corpusVersion: r.corpus_version,
    tokensIn: r.tokens_in,
    tokensOut: r.tokens_out,
  };
}

/** Records a new run as 'running', recording its session as seen. */
export async function createRun(db: Queryable, run: NewRun): Promise<RunRecord> {
  const id = requireUuid(run.id ?? randomUUID(), 'run id');
  if (run.parentRunId) requireUuid(run.parentRunId, 'parent run id');
  const rows = await db
    .query<RecordRow>(
      `with seen as (
       insert into session (id) values ($3) on conflict (id) do update set last_seen_at = now() returning id
     )
     insert into run (id, parent_run_id, session_id, owner_id, workload, question, corpus_version)
     select $1, $2, seen.id, $4, $5, $6, $7 from seen
     returning ${RECORD_COLUMNS}`,
      [id, run.parentRunId ?? null, run.sessionId, run.ownerId, run.workload, run.question, run.corpusVersion],
    )
    .catch((error: unknown) => {
      const pg = postgresError(error);
      if (pg?.code === FOREIGN_KEY_VIOLATION && pg.constraint === 'run_parent_run_id_fkey') {
        throw new StoreError('run_not_found', `parent run ${run.parentRunId} does not exist`, { cause: error });
      }
      throw error;
    });
  return toRunRecord(rows[0]!);
}

async function requireRunning(db: Queryable, runId: string): Promise<never> {
  const [row] = await db.query<{ status: RunStatus }>('select status from run where id = $1', [runId]);
  if (!row) throw new StoreError('run_not_found', `run ${runId} does not exist`);
  throw new StoreError('run_not_running', `run ${runId} is ${row.status}, not running`);
}

/**
 * Appends one span, committed on its own before this returns, so a crash
 * loses nothing already written. Refused once the run has stopped: a process
 * whose run was marked interrupted must not keep writing into it. One writer
 * per run — seq is the next number for the run, and unique.
 */
export async function appendSpan(db: Queryable, runId: string, span: SpanInput): Promise<SpanRecord> {
  requireUuid(runId, 'run id');
  const [row] = await db.query<{
    seq: number;
    node: string;
    kind: SpanRecord['kind'];
    at: Date;
    duration_ms: number | null;
    attributes: Record<string, unknown>;
  }>(
    `insert into span (run_id, seq, node, kind, at, duration_ms, attributes)
     select r.id, coalesce((select max(seq) from span where run_id = r.id), 0) + 1, $2, $3, coalesce($4, now()), $5,
            coalesce($6::jsonb, '{}'::jsonb)
     from run r where r.id = $1 and r.status = 'running'
     returning seq, node, kind, at, duration_ms, attributes`,
    [runId, span.node, span.kind, span.at ?? null, span.durationMs ?? null, json(span.attributes)],
  );
  if (!row) return requireRunning(db, runId);
  return { seq: row.seq, node: row.node, kind: row.kind, at: iso(row.at), durationMs: row.duration_ms, attributes: row.attributes };
}

export async function listSpans(db: Queryable, runId: string): Promise<SpanRecord[]> {
  requireUuid(runId, 'run id');
  const rows = await db.query<{
    seq: number;
    node: string;
    kind: SpanRecord['kind'];
    at: Date;
    duration_ms: number | null;
    attributes: Record<string, unknown>;
  }>('select seq, node, kind, at, duration_ms, attributes from span where run_id = $1 order by seq', [runId]);
  return rows.map((r) => ({ seq: r.seq, node: r.node, kind: r.kind, at: iso(r.at), durationMs: r.duration_ms, attributes: r.attributes }));
}

/**
 * A finished run's columns after its status, in the order both writers bind them
 * (terminal, verdict, band, score, answer, risk, result, error, cost, tokens in, tokens out):
 * `finishRun` here and the batched `completeRun` (run-record-batch.ts).
 */
export function outcomeValues(outcome: Omit<RunOutcome, 'status'>): unknown[] {
  return [
    outcome.terminal ?? null,
    outcome.verdict ?? null,
    outcome.band ?? null,
    outcome.score ?? null,
    outcome.answer ?? null,
    json(outcome.risk),
    json(outcome.result),
    outcome.error ?? null,
    outcome.costUsd ?? 0,
    outcome.tokensIn ?? 0,
    outcome.tokensOut ?? 0,
  ];
}

/** Moves a running run to completed or failed, once; a run already stopped (or interrupted) is refused. */
export async function finishRun(db: Queryable, runId: string, outcome: RunOutcome): Promise<RunRecord> {
  requireUuid(runId, 'run id');
  const [row] = await db.query<RecordRow>(
    `update run set status = $2, terminal = $3, verdict = $4, band = $5, score = $6, answer = $7,
       risk = $8::jsonb, result = $9::jsonb, error = $10, cost_usd = $11, tokens_in = $12, tokens_out = $13,
       finished_at = now()
     where id = $1 and status = 'running'
     returning ${RECORD_COLUMNS}`,
    [runId, outcome.status, ...outcomeValues(outcome)],
  );
  if (!row) return requireRunning(db, runId);
  return toRunRecord(row);
}

/**
 * Start-up recovery: every run still 'running' whose owner process holds no
 * lease (see OwnerLease) is marked 'interrupted'. Runs of `ownerId` (the
 * caller) and of any other live replica are left alone, so one replica's
 * restart never interrupts another's work. Returns the ids it interrupted.
 */
export async function markInterrupted(db: Queryable, options: { ownerId: string }): Promise<string[]> {
  const rows = await db.query<{ id: string }>(
    `update run set status = 'interrupted', finished_at = now(),
       error = 'interrupted: its process (' || owner_id || ') stopped before the run finished'
     where status = 'running' and owner_id <> $1 and not ${ownerAliveSql('run.owner_id')}
     returning id::text`,
    [options.ownerId],
  );
  return rows.map((r) => r.id);
}

/**
 * The same recovery for one run, asked by a live replica reading it (issue 11
 * section 2): a run left 'running' by a replica that was killed is marked
 * interrupted by whichever replica next reads it — not only at some replica's
 * next start-up. Only when its owner holds no lease: a slow run of a live
 * replica (or the reader's own) is never touched, so "interrupted" is said only
 * after the owner's lease is really gone. Returns whether it marked the run.
 */
export async function interruptIfOwnerGone(db: Queryable, runId: string, options: { ownerId: string }): Promise<boolean> {
  if (!isUuid(runId)) return false;
  const rows = await db.query<{ id: string }>(
    `update run set status = 'interrupted', finished_at = now(),
       error = 'interrupted: its process (' || owner_id || ') stopped before the run finished'
     where id = $1 and status = 'running' and owner_id <> $2 and not ${ownerAliveSql('run.owner_id')}
     returning id::text`,
    [runId, options.ownerId],
  );
  return rows.length > 0;
}

/**
 * Marks the given runs of `ownerId` interrupted, those still 'running', with
 * `reason` as their error. Issue 12, defect 4: a run whose outcome could not be
 * written during a database outage is finished this way once the database is
 * back, by the process that owns it (see OwnerLease.interruptWhenReachable).
 * Returns the ids it interrupted.
 */
export async function interruptRuns(db: Queryable, options: { ownerId: string; runIds: readonly string[]; reason: string }): Promise<string[]> {
  const ids = options.runIds.filter(isUuid);
  if (ids.length === 0) return [];
  const rows = await db.query<{ id: string }>(
    `update run set status = 'interrupted', finished_at = now(), error = $3
     where id = any($1::uuid[]) and owner_id = $2 and status = 'running'
     returning id::text`,
    [ids, options.ownerId, options.reason],
  );
  return rows.map((r) => r.id);
}

/** Newest first; page is 1-based. */
export async function listRuns(db: Queryable, options: { page?: number; pageSize?: number } = {}): Promise<RunPage> {
  const page = options.page ?? 1;
  const pageSize = options.pageSize ?? 20;
  if (!Number.isInteger(page) || page < 1) throw new StoreError('invalid_argument', `page must be an integer ≥ 1, got ${page}`);
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
    throw new StoreError('invalid_argument', `pageSize must be an integer 1..${MAX_PAGE_SIZE}, got ${pageSize}`);
  }
  const rows = await db.query<SummaryRow>(`select ${SUMMARY_COLUMNS} from run order by created_at desc, seq desc limit $1 offset $2`, [
    pageSize,
    (page - 1) * pageSize,
  ]);
  const [count] = await db.query<{ n: number }>('select count(*)::int as n from run');
  return { runs: rows.map(toRunSummary), total: count?.n ?? 0, page, pageSize };
}

export async function getRunRecord(db: Queryable, runId: string): Promise<RunRecord | null> {
  if (!isUuid(runId)) return null;
  const [row] = await db.query<RecordRow>(`select ${RECORD_COLUMNS} from run where id = $1`, [runId]);
  return row ? toRunRecord(row) : null;
}

export async function listChildRuns(db: Queryable, runId: string): Promise<RunSummary[]> {
  if (!isUuid(runId)) return [];
  const rows = await db.query<SummaryRow>(`select ${SUMMARY_COLUMNS} from run where parent_run_id = $1 order by created_at, seq`, [runId]);
  return rows.map(toRunSummary);
}
