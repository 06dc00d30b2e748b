import { readdirSync } from 'node:fs';
import { StoreError, unusableDataDir } from './store-error.ts';
import { describeThrown } from './thrown.ts';

/**
 * Refuses an embedded database folder that holds files but no database, before PGlite writes anything into it.
 * A `pglite` folder with a file named `base` in it (or SANDSCOPE_DATA_DIR pointed at a folder of someone's own
 * files) had PGlite write its database files among them: with `base` in the way it then failed, and the CLI said
 * "internal error: [object Object]. This is a bug"; with only unrelated files it quietly built a database beside
 * them. A database folder has PG_VERSION (PGlite writes it when it makes one); an empty or absent folder, or one
 * holding only the operating system's own files, is a new database's start.
 */
export function refuseForeignDataDir(dataDir: string): void {
  let entries: string[];
  try {
    entries = readdirSync(dataDir);
  } catch (error) {
    // Absent: PGlite makes it. Anything else (not a folder, no permission) is the setting, named.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw unusableDataDir(dataDir, error);
  }
  if (entries.includes('PG_VERSION')) return;
  // The operating system's own files count as none: a `pglite` folder once opened in the Finder (or Explorer) holding
  // only a `.DS_Store` was refused as someone's files, and the message told them to move it. They are left where they are.
  const others = entries.filter((name) => !isLitter(name)).sort();
  if (others.length === 0) return;
  const shown = others.slice(0, 3).join(', ');
  const more = others.length > 3 ? ` and ${others.length - 3} more` : '';
  throw new StoreError(
    'data_dir_not_database',
    `the embedded database folder ${dataDir} holds files but no database (${shown}${more}; no PG_VERSION), so none is made among them`,
  );
}

/**
 * A file the operating system leaves in a folder it has shown: macOS's `.DS_Store` and `._*` (AppleDouble, on disks
 * not formatted for macOS), Windows's `Thumbs.db` and `desktop.ini` (in any case, as Windows does not tell them apart).
 */
function isLitter(name: string): boolean {
  const lower = name.toLowerCase();
  return name === '.DS_Store' || name.startsWith('._') || lower === 'thumbs.db' || lower === 'desktop.ini';
}

/**
 * Any other failure to open an embedded database, as a StoreError naming the folder. PGlite throws Emscripten's
 * ErrnoError for a file-system failure, which is not an Error ({ name: 'ErrnoError', errno: 54 }): the CLI printed it
 * as "internal error: [object Object]. This is a bug", naming neither the folder nor the cause.
 */
export function pgliteOpenFailed(dataDir: string, error: unknown): StoreError {
  return new StoreError('database_unopenable', `the embedded database at ${dataDir} could not be opened (${describeThrown(error)})`, { cause: error });
}
