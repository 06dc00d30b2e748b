import { describeThrown } from '@sandscope/store';

/**
 * The line for a full disk, or null for any other failure. A full disk is the machine's state, not a bug: it was
 * printed as "internal error: could not extend file "base/5/17193": No space left on device. This is a bug" (a
 * colleague's black-box audit of the investigation CLI, S-230). It is met as Node's ENOSPC, as PGlite's ErrnoError
 * (WASI errno 51, ENOSPC), and as Postgres's own disk_full (SQLSTATE 53100) with that message.
 */
export function diskFullLine(error: unknown): string | null {
  if (!isDiskFull(error)) return null;
  return `sandscope: the disk is full (${describeThrown(error)}). Free space on the disk that holds SANDSCOPE_DATA_DIR (or the file being written), then run this again.\n`;
}

function isDiskFull(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { code?: unknown; errno?: unknown; name?: unknown; message?: unknown };
  if (e.code === 'ENOSPC' || e.code === '53100') return true;
  if (e.name === 'ErrnoError' && e.errno === WASI_ENOSPC) return true;
  return typeof e.message === 'string' && /No space left on device/.test(e.message);
}

const WASI_ENOSPC = 51;
