import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { livePgliteOwner, startStore, type Store, StoreError } from '@sandscope/store';
import { loadConfig } from '../config.ts';
import { UserError } from '../user-error.ts';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Opens the database the agent records its runs in, for a CLI command that
 * reads or marks them (`feedback`, `eval --feedback`): DATABASE_URL when set,
 * else the embedded PGlite under SANDSCOPE_DATA_DIR — the same configuration
 * `serve` reads, so both find the same runs.
 *
 * Two refusals guard the embedded database, each one line saying what to do:
 * - no database there yet: opening would silently create an empty one, and
 *   "run not found" would then be a lie about where the runs are;
 * - the database is open in another process (`npm start` is running): PGlite
 *   has one owner per data directory, and a second writer would corrupt it.
 *   The owner's pid is recorded beside the folder (`livePgliteOwner`). PGlite's
 *   own `postmaster.pid` was the sign once, and a command stopped by Ctrl-C left
 *   it behind: every later command was refused until a person deleted it (S-228).
 *   Opened again, PGlite takes over a dead owner's folder and removes it.
 *
 * A Postgres server has no such limits: the CLI takes its own lease there, as
 * any replica does, and start-up recovery leaves live owners' runs alone.
 */
export async function openCliStore(env: Env = process.env, options: { readonly create?: boolean } = {}): Promise<Store> {
  const parsed = loadConfig(env);
  if (!parsed.ok) throw new UserError(parsed.message.split('\n').join(' | '));
  const { database } = parsed.config;
  if (database.kind === 'pglite') {
    // `investigation` creates what it reads, so an empty data directory is a start, not a mistake.
    if (!options.create && !embeddedDatabaseAt(database.dir)) {
      throw new UserError(
        `no Sandscope database at ${database.dir}: runs are recorded by the agent (\`npm start\` or \`npx sandscope serve\`). ` +
          'Ask a question there first, or set SANDSCOPE_DATA_DIR (or DATABASE_URL) to where the agent keeps its runs.',
      );
    }
    const owner = livePgliteOwner(database.dir);
    if (owner !== null) {
      throw new UserError(
        `the database at ${database.dir} is open in another process (pid ${owner}: is \`npm start\` or \`npx sandscope serve\` running?). ` +
          `Stop it and run this again, or use the website's run page.`,
      );
    }
  }
  try {
    return database.kind === 'postgres' ? await startStore({ url: database.url }) : await startStore({ dataDir: database.dir });
  } catch (error) {
    if (error instanceof StoreError) throw new UserError(`${error.message}. ${error.remedy}`);
    throw error;
  }
}

/**
 * Whether an embedded database has been made in `dir` (PGlite writes PG_VERSION when it makes one). `investigation`
 * asks before it opens one: opening makes an empty database, and S-192's person, one folder off, was told
 * "There is no investigation …" and left a second, empty .sandscope/ behind.
 */
export function embeddedDatabaseAt(dir: string): boolean {
  return existsSync(join(dir, 'PG_VERSION'));
}
