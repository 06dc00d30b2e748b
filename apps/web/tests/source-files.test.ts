import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isPlainRepoPath, readSource, repositoryRoot, sourceAllowlist } from '../lib/source-files';

/* The source page shows what the architecture page names and nothing else (lib/source-files.ts). */

const outside = mkdtempSync(path.join(tmpdir(), 'sandscope-outside-'));
const root = mkdtempSync(path.join(tmpdir(), 'sandscope-repo-'));
writeFileSync(path.join(outside, 'secret.ts'), 'export const SECRET = 1;\n');
writeFileSync(path.join(root, 'package.json'), JSON.stringify({ workspaces: ['apps/web'] }));
mkdirSync(path.join(root, 'apps/web/app/runs/[id]'), { recursive: true });
mkdirSync(path.join(root, 'apps/agent/src/http/testing'), { recursive: true });
writeFileSync(path.join(root, 'apps/web/app/runs/[id]/page.tsx'), 'export default function Page() {}\n');
writeFileSync(path.join(root, 'apps/agent/src/http/app.ts'), 'export const app = 1;\n');
writeFileSync(path.join(root, 'apps/agent/src/http/notes.md'), '# not source\n');
writeFileSync(path.join(root, 'apps/agent/src/http/.env.ts'), 'export const KEY = "x";\n');
writeFileSync(path.join(root, 'apps/agent/src/http/testing/fake.ts'), 'export const fake = 1;\n');
writeFileSync(path.join(root, 'apps/agent/src/config.ts'), 'export const config = 1;\n');
symlinkSync(path.join(outside, 'secret.ts'), path.join(root, 'apps/agent/src/http/escape.ts'));
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

const allow = sourceAllowlist(['apps/web/app/runs/[id]/page.tsx', 'apps/agent/src/http/', '../outside/secret.ts', 'package.json']);

describe('source files', () => {
  it('takes only plain relative paths', () => {
    for (const bad of ['', '/etc/passwd', '../x.ts', 'a/../b.ts', 'a/./b.ts', 'a//b.ts', 'a/.env', '.git/config', 'a\\b.ts'])
      expect(isPlainRepoPath(bad), bad).toBe(false);
    expect(isPlainRepoPath('apps/web/app/api/runs/[id]/approve/route.ts')).toBe(true);
  });

  it('allows named source files and named folders, nothing else named', () => {
    expect([...allow.files]).toEqual(['apps/web/app/runs/[id]/page.tsx']);
    expect([...allow.folders]).toEqual(['apps/agent/src/http']);
  });

  it('shows a named file, a named folder, and the source files directly in it', async () => {
    expect(await readSource(root, 'apps/web/app/runs/[id]/page.tsx', allow)).toMatchObject({ kind: 'file', text: expect.stringContaining('Page') });
    expect(await readSource(root, 'apps/agent/src/http', allow)).toEqual({ kind: 'folder', path: 'apps/agent/src/http', entries: ['app.ts'] });
    expect(await readSource(root, 'apps/agent/src/http/app.ts', allow)).toMatchObject({ kind: 'file' });
  });

  it('refuses what is not named, not source, a dot-file, below a named folder, or a link out of the repository', async () => {
    for (const p of [
      'apps/agent/src/config.ts',
      'package.json',
      'apps/agent/src/http/notes.md',
      'apps/agent/src/http/.env.ts',
      'apps/agent/src/http/testing/fake.ts',
      'apps/agent/src/http/escape.ts',
      'apps/agent/src/http/../config.ts',
      'apps/agent/src/http/missing.ts',
    ]) {
      expect(await readSource(root, p, allow), p).toBeNull();
    }
  });

  it('finds the repository from inside it', () => {
    expect(repositoryRoot(path.join(root, 'apps/agent/src/http'))).toBe(root);
    expect(repositoryRoot(outside)).toBeNull();
  });
});
