import pg from 'pg';
import type { Database, HeldConnection, Queryable } from './database.ts';
import { StoreError } from './store-error.ts';

interface ClientLike {
  query(sql: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
}

function queryableOf(client: ClientLike): Queryable {
  return {
    async query<T>(sql: string, params: readonly unknown[] = []) {
      const result = await client.query(sql, params as unknown[]);
      return result.rows as T[];
    },
    async exec(sql: string) {
      await client.query(sql);
    },
  };
}

/** The URL with its password replaced, so it can appear in a log or an error. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparseable URL)';
  }
}

/** A schema name is interpolated into the connection options, so it is restricted. */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * A Postgres server through a node-postgres pool. Connects once up front so a
 * wrong DATABASE_URL fails at start-up with a message naming it, not at the
 * first request with a bare ECONNREFUSED.
 */
export async function openPostgresDatabase(url: string, options: { schema?: string } = {}): Promise<Database> {
  if (options.schema !== undefined && !SCHEMA_NAME.test(options.schema)) {
    throw new StoreError('invalid_argument', `schema "${options.schema}" must match ${SCHEMA_NAME}`);
  }
  const where = redactUrl(url);
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    connectionTimeoutMillis: 10_000,
    // public stays on the path so an extension installed there (pgvector) resolves.
    ...(options.schema ? { options: `-c search_path=${options.schema},public` } : {}),
  });
  // An idle client losing its server must not crash the process; the next query reports it.
  pool.on('error', () => {});
  try {
    await pool.query('select 1');
  } catch (error) {
    await pool.end().catch(() => {});
    const reason = error instanceof Error ? error.message : String(error);
    throw new StoreError(
      'database_unreachable',
      `Could not connect to the Postgres server in DATABASE_URL (${where}): ${reason}. ` +
        'Check that the server is running and DATABASE_URL is right, or unset DATABASE_URL to use the embedded PGlite database.',
      { cause: error },
    );
  }

  return {
    dialect: 'postgres',
    description: `Postgres at ${where}${options.schema ? ` (schema ${options.schema})` : ''}`,
    ...queryableOf(pool),
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('begin');
        const result = await fn(queryableOf(client));
        await client.query('commit');
        return result;
      } catch (error) {
        await client.query('rollback').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    async holdConnection(): Promise<HeldConnection> {
      const client = await pool.connect();
      client.on('error', () => {});
      let released = false;
      return {
        ...queryableOf(client),
        async release() {
          if (released) return;
          released = true;
          // Destroy rather than return to the pool: session state (locks) must not leak to the next user.
          client.release(true);
        },
      };
    },
    close: () => pool.end(),
  };
}
