import type { Corpus } from '@sandscope/api/corpus';

/**
 * Whether the agent reads the bundled library (Larkspur, an invented company) — what the console's presets and the
 * pages' words about Larkspur are written for. Unknown (the corpus could not be read, or an agent older than S-149)
 * is taken as bundled: the words were written for it.
 */
export function readsBundledLibrary(corpus: Corpus | null): boolean {
  return corpus?.library?.bundled !== false;
}

/** The library's name as the pages say it: its folder's name. */
export function libraryName(corpus: Corpus | null): string {
  return corpus?.library?.name ?? 'the library';
}
