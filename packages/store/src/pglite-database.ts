import { PGlite, type Transaction } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import type { Database, HeldConnection, Queryable } from './database.ts';
import { pgliteOpenFailed, refuseForeignDataDir } from './pglite-data-dir.ts';
import { claimPgliteOwner } from './pglite-owner.ts';
import { StoreError } from './store-error.ts';

type PgliteQueryable = Pick<Transaction, 'query' | 'exec'>;

function queryableOf(pg: PgliteQueryable): Queryable {
  return {
    async query<T>(sql: string, params: readonly unknown[] = []) {
      const result = await pg.query<T>(sql, params as unknown[]);
      return result.rows;
    },
    async exec(sql: string) {
      await pg.exec(sql);
    },
  };
}

/**
 * Embedded Postgres (WebAssembly) with pgvector loaded. One process owns a
 * data directory; a fresh instance takes seconds and most of a gigabyte, so
 * tests share one per file.
 */
export async function openPgliteDatabase(dataDir: string): Promise<Database> {
  // An in-memory database is this process's alone; a folder is claimed before PGlite reads it.
  const inMemory = dataDir.includes('://');
  const releaseOwner = inMemory ? () => {} : claimPgliteOwner(dataDir);
  let pg: PGlite;
  try {
    // Looked at once claimed, so a folder another process is making its database in is "in use", not someone's files.
    if (!inMemory) refuseForeignDataDir(dataDir);
    pg = await PGlite.create({ dataDir, extensions: { vector } });
  } catch (error) {
    releaseOwner();
    // PGlite's own failures (its ErrnoError is no Error) reach the CLI and the service as the folder, named.
    throw error instanceof StoreError ? error : pgliteOpenFailed(dataDir, error);
  }
  const base = queryableOf(pg);
  return {
    dialect: 'pglite',
    description: `PGlite at ${dataDir}`,
    ...base,
    transaction: (fn) => pg.transaction((tx) => fn(queryableOf(tx))),
    // PGlite is a single connection: session state set on it lasts until close.
    holdConnection: async (): Promise<HeldConnection> => ({ ...base, onLost: () => {}, release: async () => {} }),
    close: async () => {
      try {
        await pg.close();
      } finally {
        releaseOwner();
      }
    },
  };
}
