// Server-side by its `node:fs` imports (a client bundle cannot take them); not `server-only`, so the unit tests can load it.
import { existsSync, readFileSync } from 'node:fs';
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import path from 'node:path';

/*
 * The source page's reading of the repository. It shows what the architecture
 * page names — the request path's files and folders and the graph's node files
 * — and nothing else: a URL is a request for a file, and a website that opens
 * whatever path it is given hands out `.env` files and the agent's database.
 * So a path must be named (or sit directly in a named folder), be TypeScript
 * source, have no `.`/`..`/dot-file segment, and resolve — symlinks followed —
 * inside the repository.
 */

/** TypeScript only: no configuration, lockfile, data or secret file is ever one of these. */
const SOURCE_EXTENSIONS = ['.ts', '.tsx', '.mts'] as const;
/** The largest file shown; the named files are a few hundred lines. */
const MAX_BYTES = 256 * 1024;

export type SourceEntry =
  | { readonly kind: 'file'; readonly path: string; readonly text: string }
  | { readonly kind: 'folder'; readonly path: string; readonly entries: readonly string[] };

/** What may be shown: files by path, folders (without their trailing slash) whose direct source files may be. */
export interface SourceAllowlist {
  readonly files: ReadonlySet<string>;
  readonly folders: ReadonlySet<string>;
}

const isSource = (p: string) => SOURCE_EXTENSIONS.some((ext) => p.endsWith(ext));

/** Relative, `/`-separated, every segment a plain name: no empty, `.`, `..` or dot-file segment. */
export function isPlainRepoPath(p: string): boolean {
  if (p.length === 0 || p.length > 300) return false;
  return p.split('/').every((segment) => /^[A-Za-z0-9_@[\]-][A-Za-z0-9_.@[\]-]*$/.test(segment));
}

/** Paths as the architecture page names them (a folder ends in `/`); anything not plain is dropped. */
export function sourceAllowlist(named: readonly string[]): SourceAllowlist {
  const files = new Set<string>();
  const folders = new Set<string>();
  for (const raw of named) {
    const p = raw.endsWith('/') ? raw.slice(0, -1) : raw;
    if (!isPlainRepoPath(p)) continue;
    if (raw.endsWith('/')) folders.add(p);
    else if (isSource(p)) files.add(p);
  }
  return { files, folders };
}

/**
 * The repository the website runs from: the nearest folder up from the working
 * directory whose package.json lists `apps/web` as a workspace. Null when the
 * website runs without its repository (then no file can be shown).
 */
export function repositoryRoot(from: string = process.cwd()): string | null {
  for (let dir = path.resolve(from); ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        const workspaces: unknown = JSON.parse(readFileSync(manifest, 'utf8')).workspaces;
        if (Array.isArray(workspaces) && workspaces.includes('apps/web')) return dir;
      } catch {
        // not a manifest we can read: keep looking upwards
      }
    }
    if (path.dirname(dir) === dir) return null;
  }
}

/** Inside `root` once every symlink is followed, or null. */
async function resolvedInside(root: string, relative: string): Promise<string | null> {
  try {
    const realRoot = await realpath(root);
    const real = await realpath(path.join(root, ...relative.split('/')));
    return real.startsWith(realRoot + path.sep) ? real : null;
  } catch {
    return null;
  }
}

/** The named file or folder at `relative`, or null for anything not allowed, not there, or not readable. */
export async function readSource(root: string, relative: string, allow: SourceAllowlist): Promise<SourceEntry | null> {
  if (!isPlainRepoPath(relative)) return null;
  if (allow.folders.has(relative)) {
    const real = await resolvedInside(root, relative);
    if (!real) return null;
    try {
      const dirents = await readdir(real, { withFileTypes: true });
      const entries = dirents
        .filter((d) => d.isFile() && isSource(d.name) && isPlainRepoPath(d.name))
        .map((d) => d.name)
        .sort();
      return { kind: 'folder', path: relative, entries };
    } catch {
      return null;
    }
  }
  const named = allow.files.has(relative) || allow.folders.has(path.posix.dirname(relative));
  if (!named || !isSource(relative)) return null;
  const real = await resolvedInside(root, relative);
  if (!real || !isSource(real)) return null;
  try {
    const info = await stat(real);
    if (!info.isFile() || info.size > MAX_BYTES) return null;
    return { kind: 'file', path: relative, text: await readFile(real, 'utf8') };
  } catch {
    return null;
  }
}
