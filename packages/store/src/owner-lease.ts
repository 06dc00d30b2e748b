import { randomUUID } from 'node:crypto';
import type { Database, Queryable } from './database.ts';
import { ADVISORY_LOCK_NAMESPACE } from './migrator.ts';
import { StoreError } from './store-error.ts';

/**
 * Proof that a process is alive: a session-level advisory lock keyed on its
 * owner id, held on a connection for as long as the process runs. When the
 * process dies — even by kill -9 — its connection goes and Postgres drops the
 * lock, so "owner alive" is a fact the database knows rather than a heartbeat
 * someone must keep writing. Runs record their owner; start-up recovery
 * interrupts only runs whose owner holds no lease (see markInterrupted).
 */
export interface OwnerLease {
  readonly ownerId: string;
  release(): Promise<void>;
}

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

export async function claimOwnerLease(db: Database, ownerId: string = randomUUID()): Promise<OwnerLease> {
  const connection = await db.holdConnection();
  try {
    const [row] = await connection.query<{ locked: boolean }>('select pg_try_advisory_lock($1, hashtext($2)) as locked', [
      ADVISORY_LOCK_NAMESPACE,
      ownerId,
    ]);
    // Waiting would hang start-up behind a live twin; two processes with one id would vouch for each other's runs.
    if (!row?.locked) throw new StoreError('invalid_argument', `owner id "${ownerId}" is already held by a live process`);
  } catch (error) {
    await connection.release();
    throw error;
  }
  let released = false;
  return {
    ownerId,
    async release() {
      if (released) return;
      released = true;
      await connection.query('select pg_advisory_unlock($1, hashtext($2))', [ADVISORY_LOCK_NAMESPACE, ownerId]).catch(() => {});
      await connection.release();
    },
  };
}

export async function isOwnerAlive(db: Queryable, ownerId: string): Promise<boolean> {
  const [row] = await db.query<{ alive: boolean }>(`select ${ownerAliveSql('$1::text')} as alive`, [ownerId]);
  return row?.alive === true;
}
