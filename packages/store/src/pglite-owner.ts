import { readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { StoreError, unusableDataDir } from './store-error.ts';

/**
 * One process at a time opens an embedded database (S-135). PGlite has one owner
 * per data directory, and a second process opening the same folder — a second
 * `sandscope serve`, a CLI command beside a running agent — read and wrote it
 * beside the first: the second agent loaded the database, said "health: ok", and
 * only then found its port taken. PGlite's own `postmaster.pid` cannot tell a live
 * owner from a crashed one (its pid is always -42), so the owner is recorded here,
 * beside the folder, with this process's real pid: a live pid refuses, a dead one is
 * a crash's leftover and is taken over.
 */
export function claimPgliteOwner(dataDir: string): () => void {
  const file = `${dataDir}.owner`;
  const mine = String(process.pid);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, `${mine}\n`, { flag: 'wx' });
      return () => release(file, mine);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw unusableDataDir(dataDir, error);
    }
    const holder = readHolder(file);
    if (holder === mine) return () => release(file, mine);
    if (holder !== null && alive(Number(holder))) {
      throw new StoreError(
        'database_in_use',
        `the database at ${dataDir} is open in another process (pid ${holder}: is \`npm start\` or \`npx sandscope serve\` running?)`,
      );
    }
    // A crash's leftover (or a file cut short): nobody holds it.
    try {
      unlinkSync(file);
    } catch {
      // Another process took it over first; the next attempt finds out whose it is.
    }
  }
  throw new StoreError('database_in_use', `the database at ${dataDir} is being opened by another process`);
}

/**
 * The live process, other than this one, that holds the embedded database in `dataDir`, if any: what a command asks
 * before it opens the folder. PGlite's `postmaster.pid` cannot tell (S-228: a CLI command stopped by Ctrl-C left it
 * behind, and every later command was refused as if a server had the folder open).
 */
export function livePgliteOwner(dataDir: string): string | null {
  const holder = readHolder(`${dataDir}.owner`);
  return holder !== null && holder !== String(process.pid) && alive(Number(holder)) ? holder : null;
}

function readHolder(file: string): string | null {
  try {
    const pid = readFileSync(file, 'utf8').trim();
    return /^\d+$/.test(pid) ? pid : null;
  } catch {
    return null;
  }
}

/** Signal 0 checks that a process exists; EPERM means it exists under another user. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function release(file: string, mine: string): void {
  if (readHolder(file) !== mine) return;
  try {
    unlinkSync(file);
  } catch {
    // Already gone: nothing to release.
  }
}
