import type { Queryable } from './database.ts';
import { ADVISORY_LOCK_NAMESPACE } from './migrator.ts';

/*
 * Whether an owner's lease (owner-lease.ts) is held, asked of the database.
 * Apart from the lease itself so the run repository can ask it without
 * importing the lease, which imports the run repository to recover runs.
 */

/**
 * SQL true when the owner id in `ownerExpr` holds a lease in this database.
 * The lock's second key is hashtext(owner id); objid is its unsigned form.
 */
export function ownerAliveSql(ownerExpr: string): string {
  return `exists (
    select 1 from pg_locks l
    where l.locktype = 'advisory' and l.granted and l.objsubid = 2
      and l.database = (select oid from pg_database where datname = current_database())
      and l.classid = ${ADVISORY_LOCK_NAMESPACE}
      and l.objid::bigint = (hashtext(${ownerExpr})::bigint & 4294967295)
  )`;
}

export async function isOwnerAlive(db: Queryable, ownerId: string): Promise<boolean> {
  const [row] = await db.query<{ alive: boolean }>(`select ${ownerAliveSql('$1::text')} as alive`, [ownerId]);
  return row?.alive === true;
}
