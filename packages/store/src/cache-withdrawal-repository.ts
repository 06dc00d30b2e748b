import type { Queryable } from './database.ts';

/**
 * Whether a semantic cache entry under `key`, written at `createdAt` (epoch ms, the entry's own time), was withdrawn by
 * a `wrong-answer` mark made at or after it (migration 0029; markRun writes the withdrawals). S-263: a mark whose
 * eviction failed (the cache's Redis down) left the answer it marked wrong in the cache, and it was served again once
 * Redis was back; asked on every cache hit, this keeps it from being served whether or not the eviction succeeded.
 * One primary-key lookup. An entry with no readable time is withdrawn by any withdrawal of its key.
 *
 * The entry's time is its writer's clock and the withdrawal's the database's, compared as they are: a replica whose
 * clock runs ahead of the database's by more than the time between an answer and its mark (a person reads it first)
 * would have it served. Cheaper than recording which entry each run saw; it asks that the replicas' clocks be kept
 * (NTP), as the daily spend ceiling's UTC day already does.
 */
export async function isCachedAnswerWithdrawn(db: Queryable, key: string, createdAt: number): Promise<boolean> {
  const rows = await db.query('select 1 from cache_withdrawal where cache_key = $1 and ($2::timestamptz is null or withdrawn_at >= $2::timestamptz)', [
    key,
    Number.isFinite(createdAt) ? new Date(createdAt) : null,
  ]);
  return rows.length > 0;
}
