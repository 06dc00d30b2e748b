import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Every file and folder under root, files with their bytes and mode: taken before and after, so a test can say a
 * refused folder (and what is beside it) was left byte for byte as it was, with nothing added.
 */
export function folderSnapshot(root: string): Record<string, string> {
  const seen: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const stat = statSync(path);
      if (stat.isDirectory()) {
        seen[path] = `dir ${stat.mode}`;
        walk(path);
      } else seen[path] = `file ${stat.mode} ${readFileSync(path).toString('base64')}`;
    }
  };
  walk(root);
  return seen;
}
