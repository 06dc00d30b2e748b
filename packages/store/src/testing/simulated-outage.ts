import type { Database, HeldConnection, Queryable } from '../database.ts';
import { StoreError } from '../store-error.ts';

/** A database that can be switched off and on, for outage tests on embedded PGlite. */
export interface SimulatedOutage {
  /** The wrapped database: hand this to startStore. */
  readonly db: Database;
  readonly isDown: boolean;
  /**
   * The server goes away: every statement fails as an unreachable server's
   * would, and held connections are lost for good — unless `keepHeld`, for the
   * moment before anyone has noticed (the lease still believes it is held).
   */
  down(options?: { keepHeld?: boolean }): void;
  /** The server is back: new statements and new connections work; a connection lost while it was down stays lost. */
  up(): void;
}

function unreachable(): StoreError {
  return new StoreError('database_unreachable', 'The database is unreachable (simulated outage).');
}

/**
 * Issue 12, defect 4: PGlite lives in the process, so it cannot lose its
 * server; this wrapper lets a test take it away. While down, every call fails
 * with what the Postgres adapter raises for a server that is gone
 * (StoreError database_unreachable), and each held connection (the lease's) is
 * dropped as a restart drops it: its listeners are told, and it never works
 * again — whoever held it must take a new one.
 */
export function simulateOutage(inner: Database): SimulatedOutage {
  let isDown = false;
  const held = new Set<{ lose(): void }>();
  const guard = <T>(call: () => Promise<T>): Promise<T> => (isDown ? Promise.reject(unreachable()) : call());
  const guarded = (q: Queryable): Queryable => ({
    query: (sql, params) => guard(() => q.query(sql, params)),
    exec: (sql) => guard(() => q.exec(sql)),
  });

  const db: Database = {
    dialect: inner.dialect,
    description: inner.description,
    ...guarded(inner),
    transaction: (fn) => guard(() => inner.transaction((tx) => fn(guarded(tx)))),
    async holdConnection(): Promise<HeldConnection> {
      const connection = await guard(() => inner.holdConnection());
      let lost = false;
      const listeners: ((error: Error) => void)[] = [];
      const entry = {
        lose() {
          if (lost) return;
          lost = true;
          for (const listener of listeners) listener(unreachable());
        },
      };
      held.add(entry);
      const alive = <T>(call: () => Promise<T>): Promise<T> => (lost ? Promise.reject(unreachable()) : guard(call));
      return {
        query: (sql, params) => alive(() => connection.query(sql, params)),
        exec: (sql) => alive(() => connection.exec(sql)),
        onLost(listener) {
          listeners.push(listener);
        },
        async release() {
          held.delete(entry);
          await connection.release();
        },
      };
    },
    close: () => inner.close(),
  };

  return {
    db,
    get isDown() {
      return isDown;
    },
    down(options = {}) {
      isDown = true;
      if (!options.keepHeld) for (const entry of held) entry.lose();
    },
    up() {
      isDown = false;
    },
  };
}
