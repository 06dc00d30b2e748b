import { randomUUID } from 'node:crypto';
import type { Database, HeldConnection, Queryable } from './database.ts';
import { ADVISORY_LOCK_NAMESPACE } from './migrator.ts';
import { interruptRuns } from './run-repository.ts';
import { StoreError } from './store-error.ts';

/**
 * Proof that a process is alive: a session-level advisory lock keyed on its
 * owner id, held on a connection for as long as the process runs. When the
 * process dies — even by kill -9 — its connection goes and Postgres drops the
 * lock, so "owner alive" is a fact the database knows rather than a heartbeat
 * someone must keep writing. Runs record their owner; start-up recovery
 * interrupts only runs whose owner holds no lease (see markInterrupted).
 *
 * The connection can also go while the process lives: the server restarts, the
 * network drops it. Issue 12, defect 4: the lock went with it and was never
 * taken again, so a second instance starting later found no lease, marked this
 * process's live run interrupted, and the run's answer was refused when it came.
 * So the lease renews itself: it hears its connection go (and probes it, for a
 * connection that dies silently), and takes the lock again on a new connection
 * as soon as the server answers. Until then it is not `held`, and runs are not
 * admitted (assertHeld).
 */
export interface OwnerLease {
  readonly ownerId: string;
  /** False from the moment the lease's connection is lost until the lock is taken again. */
  readonly held: boolean;
  /**
   * Throws StoreError database_unreachable unless the lease is held: a run
   * admitted without it could be interrupted by another instance's start-up.
   */
  assertHeld(): void;
  /**
   * A run of this owner whose outcome could not be written because the
   * database was unreachable: it is marked interrupted as soon as the database
   * answers again, so it does not read `running` for ever (defect 4).
   */
  interruptWhenReachable(runId: string): void;
  release(): Promise<void>;
}

export interface OwnerLeaseOptions {
  /** How often a held lease's connection is probed, in ms (default 5000). A loss the driver reports is heard at once. */
  readonly checkMs?: number;
  /** How often to retry while the lease is lost or runs wait to be marked interrupted, in ms (default 500). */
  readonly retryMs?: number;
  /** One line when the lease is lost, renewed, or runs are interrupted after an outage: for the server log. */
  readonly log?: (line: string) => void;
}

/** Why a run that an outage cut short reads `interrupted`. */
export const INTERRUPTED_BY_OUTAGE = 'interrupted: the database was unreachable while the run was in flight, so its record could not be finished';

async function tryLock(connection: Queryable, ownerId: string): Promise<boolean> {
  const [row] = await connection.query<{ locked: boolean }>('select pg_try_advisory_lock($1, hashtext($2)) as locked', [ADVISORY_LOCK_NAMESPACE, ownerId]);
  return row?.locked === true;
}

export async function claimOwnerLease(db: Database, ownerId: string = randomUUID(), options: OwnerLeaseOptions = {}): Promise<OwnerLease> {
  const connection = await db.holdConnection();
  try {
    // Waiting would hang start-up behind a live twin; two processes with one id would vouch for each other's runs.
    if (!(await tryLock(connection, ownerId))) throw new StoreError('invalid_argument', `owner id "${ownerId}" is already held by a live process`);
  } catch (error) {
    await connection.release();
    throw error;
  }
  return new RenewingLease(db, ownerId, connection, options);
}

const reasonOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Rejects after `ms` unless `promise` settles first: a probe of a connection that went silent must not hang. */
function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * One timer drives it: while held and nothing is pending it probes every
 * checkMs; while lost, or while runs wait to be interrupted, it retries every
 * retryMs. The timer is unref'd: a lease never keeps a process alive.
 */
class RenewingLease implements OwnerLease {
  readonly ownerId: string;
  readonly #db: Database;
  readonly #checkMs: number;
  readonly #retryMs: number;
  readonly #log: (line: string) => void;
  #connection: HeldConnection | undefined;
  #state: 'held' | 'lost' | 'released' = 'held';
  #timer: NodeJS.Timeout | undefined;
  #ticking = false;
  readonly #toInterrupt = new Set<string>();

  constructor(db: Database, ownerId: string, connection: HeldConnection, options: OwnerLeaseOptions) {
    this.ownerId = ownerId;
    this.#db = db;
    this.#checkMs = options.checkMs ?? 5_000;
    this.#retryMs = options.retryMs ?? 500;
    this.#log = options.log ?? (() => {});
    this.#adopt(connection);
    this.#schedule();
  }

  get held(): boolean {
    return this.#state === 'held';
  }

  assertHeld(): void {
    if (this.#state === 'held') return;
    throw new StoreError(
      'database_unreachable',
      this.#state === 'lost'
        ? `this process's run-ownership lease (${this.ownerId}) was lost with its database connection and is not renewed yet`
        : `this process's run-ownership lease (${this.ownerId}) was released`,
    );
  }

  interruptWhenReachable(runId: string): void {
    if (this.#state === 'released') return;
    this.#toInterrupt.add(runId);
    this.#schedule();
  }

  async release(): Promise<void> {
    if (this.#state === 'released') return;
    this.#state = 'released';
    clearTimeout(this.#timer);
    const connection = this.#connection;
    this.#connection = undefined;
    if (!connection) return;
    await connection.query('select pg_advisory_unlock($1, hashtext($2))', [ADVISORY_LOCK_NAMESPACE, this.ownerId]).catch(() => {});
    await connection.release();
  }

  #adopt(connection: HeldConnection): void {
    this.#connection = connection;
    connection.onLost((error) => {
      if (this.#connection === connection) this.#lose(error);
    });
  }

  #lose(error: unknown): void {
    if (this.#state !== 'held') return;
    this.#state = 'lost';
    const connection = this.#connection;
    this.#connection = undefined;
    // Destroyed, not unlocked: it is gone or not answering, and the server drops its lock with it.
    void connection?.release().catch(() => {});
    this.#log(
      `database: run-ownership lease ${this.ownerId} lost with its connection (${reasonOf(error)}); runs are refused (503 store_unavailable) until it is renewed`,
    );
    this.#schedule();
  }

  #schedule(): void {
    if (this.#state === 'released' || this.#ticking) return;
    clearTimeout(this.#timer);
    const delay = this.#state === 'held' && this.#toInterrupt.size === 0 ? this.#checkMs : this.#retryMs;
    this.#timer = setTimeout(() => void this.#tick(), delay);
    this.#timer.unref();
  }

  async #tick(): Promise<void> {
    this.#ticking = true;
    try {
      if (this.#state === 'held') await this.#probe();
      else if (this.#state === 'lost') await this.#renew();
      if (this.#state === 'held' && this.#toInterrupt.size > 0) await this.#interruptPending();
    } finally {
      this.#ticking = false;
      this.#schedule();
    }
  }

  async #probe(): Promise<void> {
    const connection = this.#connection;
    if (!connection) return;
    try {
      await within(connection.query('select 1'), this.#checkMs);
    } catch (error) {
      if (this.#connection === connection) this.#lose(error);
    }
  }

  async #renew(): Promise<void> {
    let connection: HeldConnection | undefined;
    try {
      connection = await this.#db.holdConnection();
      // False while the server has not yet noticed the lost session; the next tick tries again.
      if (!(await within(tryLock(connection, this.ownerId), this.#retryMs * 4))) throw new Error('the lost session still holds the lock');
    } catch {
      await connection?.release().catch(() => {});
      return;
    }
    if (this.#state !== 'lost') {
      await connection.release().catch(() => {});
      return;
    }
    this.#state = 'held';
    this.#adopt(connection);
    this.#log(`database: run-ownership lease ${this.ownerId} renewed; runs are admitted again`);
  }

  async #interruptPending(): Promise<void> {
    const ids = [...this.#toInterrupt];
    try {
      const interrupted = await interruptRuns(this.#db, { ownerId: this.ownerId, runIds: ids, reason: INTERRUPTED_BY_OUTAGE });
      for (const id of ids) this.#toInterrupt.delete(id);
      if (interrupted.length > 0) this.#log(`database: back; ${interrupted.length} run(s) cut short by the outage marked interrupted`);
    } catch {
      // Still unreachable: the next tick tries again.
    }
  }
}
