import { describe, expect, it } from 'vitest';
import { resolveWorkspacePath } from './workspace-path.ts';

describe('workspace paths', () => {
  it('resolves paths inside the workspace, including the sandbox names for its root', () => {
    for (const [given, resolved] of [
      ['app.log', 'app.log'],
      ['./logs//app.log', 'logs/app.log'],
      ['/root/app.log', 'app.log'],
      ['~/conf/values.json', 'conf/values.json'],
      ['logs/./a.log', 'logs/a.log'],
    ] as const) {
      expect(resolveWorkspacePath(given)).toEqual({ ok: true, path: resolved });
    }
  });

  it('refuses paths that leave the workspace, each with a message that says what to do', () => {
    const cases: [string, RegExp][] = [
      ['../etc/passwd', /leaves the workspace \(".."\)/],
      ['logs/../../etc/passwd', /leaves the workspace/],
      ['logs/..', /leaves the workspace/],
      ['/etc/passwd', /outside the workspace/],
      ['/root/../etc/passwd', /leaves the workspace/],
      ['/rootkit/x', /outside the workspace/],
      ['~admin/.ssh/id_rsa', /outside the workspace/],
      ['C:\\Windows\\win.ini', /backslash/],
      ['..\\secret', /backslash/],
      ['file:///etc/passwd', /URL or a drive/],
      ['app.log\u0000.txt', /control character/],
      ['app\u009b31m.log', /control character/],
      ['app\u0085.log', /control character/],
      ['', /empty/],
      ['/root', /workspace itself/],
      ['x'.repeat(300), /the limit is 255/],
    ];
    for (const [given, why] of cases) {
      const r = resolveWorkspacePath(given);
      expect(r.ok, given).toBe(false);
      if (!r.ok) expect(r.reason, given).toMatch(why);
    }
    expect(resolveWorkspacePath(42)).toEqual({ ok: false, reason: 'a path must be text' });
  });
});
