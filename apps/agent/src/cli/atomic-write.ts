import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fchmodSync, fsyncSync, openSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * Writes `text` to `path` whole or not at all: into a temporary file beside it (same folder, so the same file
 * system), flushed to disk, then renamed over `path` in one step. Written in place, a write that failed part-way
 * (ENOSPC on a full disk) destroyed the file `--force` was replacing and left half of the new one, which a re-run
 * without --force then refused as "already exists" (S-209). On any failure the temporary file is removed and the
 * error thrown: the old file is as it was, or there is none.
 *
 * A link is written through, as a write in place did: its target is replaced, the link kept. The file keeps its
 * permissions. The temporary name starts with a dot, so one left by a killed process is hidden, and no corpus
 * reads it.
 */
export function writeFileAtomic(path: string, text: string): void {
  const target = existsSync(path) ? realpathSync(path) : path;
  const mode = existsSync(target) ? statSync(target).mode & 0o7777 : undefined;
  const temp = join(dirname(target), `.${basename(target).slice(0, 200)}.${randomBytes(6).toString('hex')}.tmp`);
  let fd: number | undefined;
  try {
    fd = openSync(temp, 'wx');
    // Set outright, not through the umask: a group-writable file stayed so when written in place.
    if (mode !== undefined) fchmodSync(fd, mode);
    writeFileSync(fd, text);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(temp, target);
  } catch (error) {
    if (fd !== undefined) closeQuietly(fd);
    removeQuietly(temp);
    throw error;
  }
}

/** Closes a descriptor after a failure: the failure is what is reported, not a second one in the clean-up. */
function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // the write's error is thrown instead
  }
}

function removeQuietly(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // the write's error is thrown instead
  }
}
