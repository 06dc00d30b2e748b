import { randomUUID } from 'node:crypto';
import type { Queryable } from './database.ts';
import { iso, json } from './values.ts';

export interface EvalRunRecord {
  readonly id: string;
  readonly kind: string;
  readonly createdAt: string;
  readonly summary: unknown;
}

interface EvalRunRow {
  id: string;
  kind: string;
  created_at: Date;
  summary: unknown;
}

const toRecord = (r: EvalRunRow): EvalRunRecord => ({ id: r.id, kind: r.kind, createdAt: iso(r.created_at), summary: r.summary });

export async function saveEvalRun(db: Queryable, run: { kind: string; summary: unknown; id?: string }): Promise<EvalRunRecord> {
  const [row] = await db.query<EvalRunRow>(
    'insert into eval_run (id, kind, summary) values ($1, $2, $3::jsonb) returning id::text, kind, created_at, summary',
    [run.id ?? randomUUID(), run.kind, json(run.summary) ?? 'null'],
  );
  return toRecord(row!);
}

/** The most recent evaluation, of one kind or any. */
export async function latestEvalRun(db: Queryable, kind?: string): Promise<EvalRunRecord | null> {
  const [row] = await db.query<EvalRunRow>(
    `select id::text, kind, created_at, summary from eval_run
     where ($1::text is null or kind = $1) order by created_at desc, seq desc limit 1`,
    [kind ?? null],
  );
  return row ? toRecord(row) : null;
}
