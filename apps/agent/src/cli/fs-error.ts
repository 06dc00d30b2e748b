/** What the system said, in words: a person read "cannot read /tmp/ev: EISDIR" and had to look the code up. */
const WORDS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file or folder',
  EACCES: 'permission denied',
  EPERM: 'not permitted',
  EISDIR: 'it is a folder, not a file',
  ENOTDIR: 'a part of the path is not a folder',
  ENOSPC: 'the disk is full',
  EFBIG: 'the file is over the size this system allows',
  EDQUOT: 'the disk quota is used up',
  EROFS: 'the file system is read-only',
  EMFILE: 'too many files are open',
  ENAMETOOLONG: 'the name is too long',
};

/** Why a file could not be read or written, as a person reads it (the code kept after it, for a search). */
export function fsErrorWords(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code && WORDS[code]) return `${WORDS[code]} (${code})`;
  return code ?? (error instanceof Error ? error.message : String(error));
}
