import type { Queryable } from './database.ts';
import { StoreError } from './store-error.ts';
import { iso, requireUuid } from './values.ts';

export type SpendKind = 'reserve' | 'settle' | 'release';

export interface SpendEntry {
  readonly kind: SpendKind;
  readonly provider: string | null;
  readonly usd: number;
  readonly at: string;
}

export interface RunSpend {
  readonly entries: SpendEntry[];
  readonly reservedUsd: number;
  readonly settledUsd: number;
  readonly releasedUsd: number;
}

/**
 * Appends one ledger line. Money is reserved before a call goes out and
 * settled (what it cost) and released (the reservation) after — the ledger is
 * the record the spend guard's arithmetic can be checked against (D-010).
 */
export async function recordSpend(db: Queryable, entry: { runId: string; kind: SpendKind; usd: number; provider?: string | null }): Promise<void> {
  requireUuid(entry.runId, 'run id');
  if (!Number.isFinite(entry.usd) || entry.usd < 0) throw new StoreError('invalid_argument', `usd must be a finite amount ≥ 0, got ${entry.usd}`);
  await db.query('insert into spend_ledger (run_id, kind, provider, usd) values ($1, $2, $3, $4)', [
    entry.runId,
    entry.kind,
    entry.provider ?? null,
    entry.usd,
  ]);
}

export async function spendForRun(db: Queryable, runId: string): Promise<RunSpend> {
  requireUuid(runId, 'run id');
  const rows = await db.query<{ kind: SpendKind; provider: string | null; usd: number; at: Date }>(
    'select kind, provider, usd::float8 as usd, at from spend_ledger where run_id = $1 order by id',
    [runId],
  );
  const entries = rows.map((r) => ({ kind: r.kind, provider: r.provider, usd: r.usd, at: iso(r.at) }));
  const total = (kind: SpendKind) => entries.filter((e) => e.kind === kind).reduce((sum, e) => sum + e.usd, 0);
  return { entries, reservedUsd: total('reserve'), settledUsd: total('settle'), releasedUsd: total('release') };
}
