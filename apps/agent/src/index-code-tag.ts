import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { type Embedder, SNAPSHOT_LAYOUT } from '@sandscope/engine';

const REPO_ROOT = resolve(import.meta.dirname, '../../..');

/**
 * The tag of the code that builds an index, part of an index snapshot's store key (issue 11): the snapshot
 * layout, the embedder, and a digest of every engine source file and the lockfile (the stemmer and the
 * stopword list are dependencies). Any change to any of them — a tokenizer fix, a retrained model, a new
 * stemmer version — gives another tag, so a replica never loads a snapshot made by other code; the price is
 * one rebuild after a deploy that changed the engine at all, which is the safe side to err on.
 *
 * Null when the sources cannot be read (a packaging that ships no sources): then no snapshot is used,
 * because there would be no way to tell a stale one.
 */
export function indexCodeTag(embedder: Embedder | null, root = REPO_ROOT): string | null {
  try {
    const engine = join(root, 'packages/engine');
    const files = [...sourceFiles(join(engine, 'src')), join(engine, 'package.json'), join(root, 'package-lock.json')];
    const hash = createHash('sha256');
    for (const file of files)
      hash
        .update(`${relative(root, file)}\0`)
        .update(readFileSync(file))
        .update('\0');
    return `${SNAPSHOT_LAYOUT}/${embedder?.id ?? 'no-embedder'}/${hash.digest('hex').slice(0, 16)}`;
  } catch {
    return null;
  }
}

/** The engine's source files in a stable order, tests and test support left out (they build no index). */
function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'testing') out.push(...sourceFiles(path));
    } else if (!/\.test\.ts$/.test(entry.name)) out.push(path);
  }
  return out;
}
