import type { Library } from '@sandscope/api/corpus';

/**
 * Whether the agent reads the bundled library (Larkspur, an invented company) — what the console's presets and the
 * pages' words about Larkspur are written for. Unknown (the library could not be read, or an agent older than S-149)
 * is taken as bundled: the words were written for it.
 */
export function readsBundledLibrary(library: Library | null | undefined): boolean {
  return library?.bundled !== false;
}

/** The library's name as the pages say it: its folder's name. */
export function libraryName(library: Library | null | undefined): string {
  return library?.name ?? 'the library';
}
