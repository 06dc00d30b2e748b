import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import type { Database, HeldConnection, Queryable } from './database.ts';
import { StoreError } from './store-error.ts';

interface ClientLike {
  query(sql: string, params?: unknown[]): Promise<{ rows: unknown[] }>;
}

/** Socket errors that mean the server cannot be reached, or stopped answering. */
const NETWORK_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);
/**
 * SQLSTATEs of a server going away or not taking a connection: class 08 (connection exception), the shutdown codes
 * 57P01-57P03, and 53300 too_many_connections — a server at max_connections refusing the pool a new connection
 * (no statement ran; the store cannot be reached until it has room).
 */
const CONNECTION_SQLSTATE = /^(08[0-9A-Z]{3}|57P0[123]|53300)$/;
/** What node-postgres says, without a code, when its connection ends or never starts. */
const DRIVER_CONNECTION_MESSAGE = /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/;

/**
 * True when `error` says the server is unreachable rather than that a
 * statement was wrong. Issue 12, defect 4: an outage surfaced as a bare
 * ECONNREFUSED that the service could only call `internal`; it is told apart
 * here, once, so the service can refuse with 503 and recover afterwards.
 */
export function isConnectionFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error instanceof AggregateError && error.errors.some(isConnectionFailure)) return true;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (NETWORK_ERROR_CODES.has(code) || CONNECTION_SQLSTATE.test(code))) return true;
  return DRIVER_CONNECTION_MESSAGE.test(error.message);
}

/** A connection failure as the store's database_unreachable; anything else unchanged. */
function converted(error: unknown, where: string): unknown {
  if (!isConnectionFailure(error)) return error;
  const reason = error instanceof Error ? error.message || (error as { code?: string }).code || error.name : String(error);
  return new StoreError('database_unreachable', `The Postgres server in DATABASE_URL (${where}) is unreachable: ${reason}`, { cause: error });
}

function queryableOf(client: ClientLike, where: string): Queryable {
  return {
    async query<T>(sql: string, params: readonly unknown[] = []) {
      const result = await client.query(sql, params as unknown[]).catch((error: unknown) => {
        throw converted(error, where);
      });
      return result.rows as T[];
    },
    async exec(sql: string) {
      await client.query(sql).catch((error: unknown) => {
        throw converted(error, where);
      });
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
      // The remedy is the code's (STORE_ERROR_REMEDIES), which every printer appends: said here too, it was said twice.
      `Could not connect to the Postgres server in DATABASE_URL (${where}): ${reason.replace(/\.$/, '')}`,
      { cause: error },
    );
  }

  const connect = () =>
    pool.connect().catch((error: unknown) => {
      throw converted(error, where);
    });

  return {
    dialect: 'postgres',
    description: `Postgres at ${where}${options.schema ? ` (schema ${options.schema})` : ''}`,
    ...queryableOf(pool, where),
    async transaction(fn) {
      const client = await connect();
      const tx = queryableOf(client, where);
      let broken: Error | undefined;
      try {
        await tx.exec('begin');
        const result = await fn(tx);
        await tx.exec('commit');
        return result;
      } catch (error) {
        if (error instanceof StoreError && error.code === 'database_unreachable') broken = error;
        await client.query('rollback').catch(() => {});
        throw error;
      } finally {
        // A connection that failed mid-transaction is destroyed, not handed to the next caller.
        client.release(broken);
      }
    },
    async copyBytea(query: string): Promise<Uint8Array[]> {
      const client = await connect();
      let broken: Error | undefined;
      try {
        const chunks: Buffer[] = [];
        await pipeline(client.query(copyTo(`copy (${query}) to stdout (format binary)`)), async (source: AsyncIterable<Buffer>) => {
          for await (const chunk of source) chunks.push(chunk);
        });
        return binaryCopyFields(Buffer.concat(chunks));
      } catch (error) {
        broken = converted(error, where) as Error;
        throw broken;
      } finally {
        client.release(broken);
      }
    },
    literal: (value: string) => `'${value.replace(/'/g, "''")}'`,
    async holdConnection(): Promise<HeldConnection> {
      const client = await connect();
      let released = false;
      let lost = false;
      const listeners: ((error: Error) => void)[] = [];
      const lose = (error: Error) => {
        if (released || lost) return;
        lost = true;
        for (const listener of listeners) listener(converted(error, where) as Error);
      };
      // Defect 4: a held connection carries the owner lease; its loss must be heard, not swallowed.
      client.on('error', lose);
      client.on('end', () => lose(new Error('Connection terminated unexpectedly')));
      return {
        ...queryableOf(client, where),
        onLost(listener) {
          listeners.push(listener);
        },
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

const COPY_SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');

/** The single field of each row of a binary COPY stream (PostgreSQL's documented format). */
export function binaryCopyFields(data: Buffer): Uint8Array[] {
  if (data.length < 19 || !data.subarray(0, 11).equals(COPY_SIGNATURE)) throw new Error('not a binary COPY stream');
  let at = 15 + 4 + data.readUInt32BE(15);
  const rows: Uint8Array[] = [];
  for (;;) {
    const fields = data.readInt16BE(at);
    at += 2;
    if (fields === -1) return rows;
    if (fields !== 1) throw new Error(`binary COPY row of ${fields} fields, expected 1`);
    const length = data.readInt32BE(at);
    at += 4;
    if (length < 0) throw new Error('binary COPY row with a null field');
    rows.push(data.subarray(at, at + length));
    at += length;
  }
}
