/*
 * What was thrown, in words, for a message a person reads. PGlite throws Emscripten's ErrnoError, which is not an
 * Error, and two places printed it as "[object Object]": the store's open (S-203) and the CLI's last-resort line for a
 * failure nobody foresaw ("internal error: [object Object]. This is a bug"), which named nothing to report.
 */

/** Emscripten's errno numbers (WASI's, not the host's) for the failures a data folder can cause. */
const WASI_ERRNO_NAMES: Readonly<Record<number, string>> = {
  2: 'EACCES',
  20: 'EEXIST',
  28: 'EINVAL',
  29: 'EIO',
  31: 'EISDIR',
  44: 'ENOENT',
  51: 'ENOSPC',
  54: 'ENOTDIR',
  55: 'ENOTEMPTY',
  63: 'EPERM',
  69: 'EROFS',
};

/** What was thrown, in words: an Error's message, or a thrown object's name, code, errno and message. */
export function describeThrown(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  if (typeof error !== 'object' || error === null) return String(error);
  const e = error as Record<string, unknown>;
  const parts: string[] = [typeof e.name === 'string' && e.name ? e.name : 'error'];
  if (typeof e.code === 'string') parts.push(e.code);
  if (typeof e.errno === 'number') {
    const name = WASI_ERRNO_NAMES[e.errno];
    parts.push(name ? `${name} (errno ${e.errno})` : `errno ${e.errno}`);
  }
  if (typeof e.message === 'string' && e.message) parts.push(e.message);
  return parts.join(' ');
}
