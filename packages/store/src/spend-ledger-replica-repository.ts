import type { Database, Queryable } from './database.ts';
import { ADVISORY_LOCK_NAMESPACE } from './migrator.ts';
import { ownerAliveSql } from './owner-alive.ts';

/**
 * Where a replica books the deployment's daily spend: this database's `spend_day`, or a Redis server's database under a
 * key prefix (`at` is `host:port/database`, never a password).
 */
export type SpendLedgerPlace = { readonly kind: 'database' } | { readonly kind: 'redis'; readonly at: string; readonly keyPrefix: string };

/** A live replica and where it books. */
export interface SpendLedgerReplica {
  readonly ownerId: string;
  /** SANDSCOPE_REPLICA as that replica was started with. */
  readonly replica: string;
  readonly place: SpendLedgerPlace;
}

export function samePlace(a: SpendLedgerPlace, b: SpendLedgerPlace): boolean {
  if (a.kind === 'database' || b.kind === 'database') return a.kind === b.kind;
  return a.at === b.at && a.keyPrefix === b.keyPrefix;
}

/** Second key of the advisory lock claims take turns under (the migrator's is 0). */
const CLAIM_LOCK_KEY = 1;

interface Row {
  owner_id: string;
  replica: string;
  ledger: 'database' | 'redis';
  redis_at: string | null;
  key_prefix: string | null;
}

const replicaOf = (row: Row): SpendLedgerReplica => ({
  ownerId: row.owner_id,
  replica: row.replica,
  place: row.ledger === 'redis' ? { kind: 'redis', at: row.redis_at ?? '', keyPrefix: row.key_prefix ?? '' } : { kind: 'database' },
});

/** The other replicas that hold their lease now, oldest first. */
async function liveOthers(q: Queryable, ownerId: string): Promise<SpendLedgerReplica[]> {
  const rows = await q.query<Row>(
    `select owner_id, replica, ledger, redis_at, key_prefix from spend_ledger_replica r
     where r.owner_id <> $1 and ${ownerAliveSql('r.owner_id')} order by started_at, owner_id`,
    [ownerId],
  );
  return rows.map(replicaOf);
}

/**
 * S-274: records where this replica (the owner of a run-ownership lease) books, unless a live replica books elsewhere;
 * returns the live replicas that do (empty when recorded). Claims take turns under an advisory lock, so two replicas
 * starting at once with different ledgers cannot both find the table empty. Rows whose owner holds no lease are
 * deleted here: they are replicas that stopped, and count no more.
 */
export async function claimSpendLedgerPlace(
  db: Database,
  claim: { readonly ownerId: string; readonly replica: string; readonly place: SpendLedgerPlace },
): Promise<SpendLedgerReplica[]> {
  return db.transaction(async (tx) => {
    await tx.query('select pg_advisory_xact_lock($1, $2)', [ADVISORY_LOCK_NAMESPACE, CLAIM_LOCK_KEY]);
    await tx.query(`delete from spend_ledger_replica r where r.owner_id <> $1 and not ${ownerAliveSql('r.owner_id')}`, [claim.ownerId]);
    const elsewhere = (await liveOthers(tx, claim.ownerId)).filter((other) => !samePlace(other.place, claim.place));
    if (elsewhere.length > 0) return elsewhere;
    const { place } = claim;
    await tx.query(
      `insert into spend_ledger_replica (owner_id, replica, ledger, redis_at, key_prefix) values ($1, $2, $3, $4, $5)
       on conflict (owner_id) do update set replica = excluded.replica, ledger = excluded.ledger, redis_at = excluded.redis_at,
         key_prefix = excluded.key_prefix, started_at = now()`,
      [claim.ownerId, claim.replica, place.kind, place.kind === 'redis' ? place.at : null, place.kind === 'redis' ? place.keyPrefix : null],
    );
    return [];
  });
}
