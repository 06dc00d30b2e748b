import { mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { websiteBuildIsCurrent } from './website-build.ts';

describe('websiteBuildIsCurrent', () => {
  /** A repository with a website (apps/web) and the API contract it parses, every file dated `at` seconds. */
  const repo = (at: number) => {
    const root = mkdtempSync(join(tmpdir(), 'web-build-'));
    const web = join(root, 'apps/web');
    const files = [join(web, 'app/page.tsx'), join(web, 'package.json'), join(root, 'packages/api/src/evaluation.ts')];
    for (const f of files) {
      mkdirSync(join(f, '..'), { recursive: true });
      writeFileSync(f, 'x');
      utimesSync(f, at, at);
    }
    return { web, files };
  };
  const build = (web: string, at: number) => {
    mkdirSync(join(web, '.next'), { recursive: true });
    writeFileSync(join(web, '.next/BUILD_ID'), 'id');
    utimesSync(join(web, '.next/BUILD_ID'), at, at);
  };

  it('serves a complete build newer than every source', () => {
    const { web } = repo(1_000);
    build(web, 2_000);
    expect(websiteBuildIsCurrent(web)).toBe(true);
  });

  it('rebuilds when there is no complete build', () => {
    const { web } = repo(1_000);
    expect(websiteBuildIsCurrent(web)).toBe(false);
    mkdirSync(join(web, '.next'));
    expect(websiteBuildIsCurrent(web)).toBe(false);
  });

  it('rebuilds when a page or the API contract it parses changed after the build', () => {
    const page = repo(1_000);
    build(page.web, 2_000);
    utimesSync(page.files[0]!, 3_000, 3_000);
    expect(websiteBuildIsCurrent(page.web)).toBe(false);
    const contract = repo(1_000);
    build(contract.web, 2_000);
    utimesSync(contract.files[2]!, 3_000, 3_000);
    expect(websiteBuildIsCurrent(contract.web)).toBe(false);
  });

  it('reads the build where NEXT_DIST_DIR puts it', () => {
    const { web } = repo(1_000);
    mkdirSync(join(web, '.next-other'));
    writeFileSync(join(web, '.next-other/BUILD_ID'), 'id');
    utimesSync(join(web, '.next-other/BUILD_ID'), 2_000, 2_000);
    expect(websiteBuildIsCurrent(web, '.next-other')).toBe(true);
    expect(websiteBuildIsCurrent(web)).toBe(false);
  });
});
