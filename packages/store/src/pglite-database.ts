import { PGlite, type Transaction } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import type { Database, HeldConnection, Queryable } from './database.ts';
import { claimPgliteOwner } from './pglite-owner.ts';

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
  const releaseOwner = dataDir.includes('://') ? () => {} : claimPgliteOwner(dataDir);
  let pg: PGlite;
  try {
    pg = await PGlite.create({ dataDir, extensions: { vector } });
  } catch (error) {
    releaseOwner();
    throw error;
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
