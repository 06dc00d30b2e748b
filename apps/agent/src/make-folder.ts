import { mkdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * `mkdir -p`: makes `path` and every missing folder above it, and does nothing where it is a folder already.
 *
 * Not `mkdirSync(path, { recursive: true })`: Node's recursive mkdir never returns where the kernel refuses a folder
 * with ENOENT though the parent exists — under /proc (`/proc/nope`, `/proc/self/x`) it makes the parent again, which
 * exists, and retries the child, forever, at full CPU (S-271: `TOOLS_DIR=/proc/nope sandscope tools build` hung with
 * no word). Here each missing folder is made once, parent first, so that refusal is an error like any other.
 *
 * Throws the file system's error (its `code` and `path` say which folder and why), or one with code `EEXIST` when
 * `path`, or a folder above it, is a file.
 */
export function makeFolder(path: string): void {
  const missing: string[] = [];
  for (let at = resolve(path); ; at = dirname(at)) {
    const found = kindOf(at);
    if (found === 'folder') break;
    if (found === 'other') throw Object.assign(new Error(`EEXIST: ${at} exists and is not a folder`), { code: 'EEXIST', path: at, syscall: 'mkdir' });
    missing.unshift(at);
    if (dirname(at) === at) break;
  }
  for (const folder of missing) mkdirSync(folder);
}

/** What is at `path`: a folder, something else, or nothing (a path through a file is refused by stat, ENOTDIR). */
function kindOf(path: string): 'folder' | 'other' | 'none' {
  try {
    return statSync(path).isDirectory() ? 'folder' : 'other';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'none';
    throw error;
  }
}
