import { mkdir } from 'node:fs/promises';
import { unusableDataDir } from './store-error.ts';

/**
 * The store's only view of Postgres. Postgres is the one dialect; the two
 * adapters (embedded PGlite, a server via node-postgres) differ only in how
 * they connect. Repositories must not read int8 or numeric columns raw — the
 * adapters parse them differently — so they cast to int or float8 in SQL.
 */
export interface Queryable {
  /** One statement with $1… parameters; returns its rows. */
  query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  /** One or more statements, no parameters (migrations). */
  exec(sql: string): Promise<void>;
}

/** A connection held until released, for session-scoped state such as advisory locks. */
export interface HeldConnection extends Queryable {
  /**
   * Told once if the connection is lost (the server restarted, the network
   * dropped it) — and with it any session state, such as the owner lease's lock
   * (issue 12, defect 4). Never told for a release. An embedded PGlite never loses it.
   */
  onLost(listener: (error: Error) => void): void;
  release(): Promise<void>;
}

export interface Database extends Queryable {
  readonly dialect: 'pglite' | 'postgres';
  /** Where it lives, with any password removed — safe to log at start-up. */
  readonly description: string;
  /**
   * Runs fn inside BEGIN … COMMIT, rolling back if it throws. Use only `tx`
   * inside fn: on PGlite a query on the outer Database waits for the
   * transaction to end, so it would never return.
   */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  holdConnection(): Promise<HeldConnection>;
  /**
   * A server only: the rows of a one-bytea-column query, read with `COPY … TO STDOUT (FORMAT binary)` —
   * raw bytes, where a query reads a bytea as hex text (issue 11: an index snapshot of hundreds of
   * megabytes read several times slower that way). The query takes no parameters: quote values with
   * `literal`. Absent on PGlite, whose queries hand bytes over as they are.
   */
  readonly copyBytea?: (query: string) => Promise<Uint8Array[]>;
  /** The value as a quoted SQL literal, for copyBytea's query. */
  readonly literal?: (value: string) => string;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** A postgres:// URL (DATABASE_URL). When set, the server is used and dataDir is ignored. */
  url?: string;
  /** PGlite data directory, e.g. `.sandscope/pglite`, or `memory://` for tests. */
  dataDir?: string;
  /** Server only: create tables in (and read from) this schema — tests use one per run. */
  schema?: string;
}

/** Where the embedded database lives when neither a URL nor a data dir is given. */
export const DEFAULT_PGLITE_DATA_DIR = '.sandscope/pglite';

/**
 * Opens the server named by `url` if there is one, else an embedded PGlite —
 * so a fresh laptop needs no database server. Each adapter is loaded only when
 * chosen: server mode never pays PGlite's WebAssembly start-up.
 */
export async function openDatabase(options: OpenDatabaseOptions = {}): Promise<Database> {
  if (options.url) {
    const { openPostgresDatabase } = await import('./postgres-database.ts');
    return openPostgresDatabase(options.url, { schema: options.schema });
  }
  const dataDir = options.dataDir ?? DEFAULT_PGLITE_DATA_DIR;
  if (!dataDir.includes('://')) {
    try {
      await mkdir(dataDir, { recursive: true });
    } catch (error) {
      // A folder that cannot be made (a path through a file, a read-only disk, no permission) was an "internal error …
      // This is a bug" (S-143): it is the setting that is wrong, and the message says which.
      throw unusableDataDir(dataDir, error);
    }
  }
  const { openPgliteDatabase } = await import('./pglite-database.ts');
  return openPgliteDatabase(dataDir);
}
