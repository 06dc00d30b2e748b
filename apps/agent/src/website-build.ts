import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * What the website's production build is made from: its own sources, and the API contract it parses
 * (packages/api/src), the one the agent serves.
 */
function websiteSources(webDir: string): string[] {
  return ['app', 'components', 'lib', 'next.config.ts', 'package.json'].map((p) => join(webDir, p)).concat(join(webDir, '../../packages/api/src'));
}

/** The newest modification time of any file under these paths (0 when none exists). */
function newestModified(paths: readonly string[]): number {
  let newest = 0;
  const walk = (p: string) => {
    if (!existsSync(p)) return;
    const s = statSync(p);
    if (s.isDirectory()) for (const entry of readdirSync(p)) walk(join(p, entry));
    else newest = Math.max(newest, s.mtimeMs);
  };
  for (const p of paths) walk(p);
  return newest;
}

/**
 * Whether the website's production build can be served as it is: complete (`next build` writes BUILD_ID last, so a
 * folder without it is an interrupted build) and newer than every source it is made from. `npm start` served any
 * complete build, so after a pull that changed the website it served the old pages until someone deleted `.next`.
 */
export function websiteBuildIsCurrent(webDir: string, distDir = '.next'): boolean {
  const buildId = join(webDir, distDir, 'BUILD_ID');
  return existsSync(buildId) && statSync(buildId).mtimeMs > newestModified(websiteSources(webDir));
}
