import { describe, expect, it } from 'vitest';
import { exactFileName } from './file-name.ts';
import { resolveWorkspacePath } from './workspace-path.ts';

describe('file names kept exactly (S-213)', () => {
  it('keeps an ordinary name as it is: spaces, letters of any script, folders, dots inside a name', () => {
    for (const name of ['app.log', 'my app.log', 'журнал событий.log', '日志/错误.log', 'a/b/c.log', '.env', 'v1..2/x...log', '100%.log', '%2e%2e/f.log']) {
      expect(exactFileName(name), name).toEqual({ ok: true, path: name });
    }
  });

  it('refuses what resolveWorkspacePath would keep under another name, and says the name it would have kept', () => {
    const cases: [string, RegExp][] = [
      ['a//c.log', /has an empty folder name \("\/\/"\); send "a\/c\.log"$/],
      ['./d.log', /has a "\." segment \(the folder it is in\); send "d\.log"$/],
      ['logs/./d.log', /has a "\." segment/],
      ['e.log/', /ends with "\/", which names a folder, not a file; send "e\.log"$/],
      [' sp.log', /begins or ends with a space; send "sp\.log"$/],
      ['sp.log\u00a0', /begins or ends with a space/],
      ['/root/x.log', /begins with "\/"; name the file from the workspace's top: send "x\.log"$/],
      ['~/t.log', /would be kept as "t\.log" \("~\/" is the workspace's top\); send "t\.log"$/],
    ];
    for (const [given, why] of cases) {
      // Each is one the lenient rule accepts, under another name: the defect, not a new refusal of a good name.
      const lenient = resolveWorkspacePath(given);
      expect(lenient.ok && lenient.path !== given, given).toBe(true);
      const r = exactFileName(given);
      expect(r.ok, given).toBe(false);
      if (!r.ok) expect(r.reason, given).toMatch(why);
    }
  });

  it('refuses controls, bidi controls, invisible format characters and line breaks, each named and written out', () => {
    const cases: [string, RegExp][] = [
      ['\u202egol.exe', /"\\u202egol\.exe" contains a bidi control \(U\+202E\), which shows the name in another order than it is stored/],
      ['a\u2066b.log', /a bidi control \(U\+2066\)/],
      ['a\u200fb.log', /a bidi control \(U\+200F\)/],
      ['a\u061cb.log', /a bidi control \(U\+061C\)/],
      ['a\u200bb.log', /an invisible character \(U\+200B\), so two names that look the same would be two files/],
      ['\ufeffa.log', /an invisible character \(U\+FEFF\)/],
      ['a\u00adb.log', /an invisible character \(U\+00AD\)/],
      ['a\u0085b.log', /a control character \(U\+0085\)/],
      ['a\nb.log', /"a\\nb\.log" contains a control character \(U\+000A\)/],
      ['a\u2029b.log', /a line break \(U\+2029\)/],
      // Before the rule for leaving the workspace, which would quote the bidi control back as it is.
      ['..\u202e/x.log', /"\.\.\\u202e\/x\.log" contains a bidi control/],
    ];
    for (const [given, why] of cases) {
      const r = exactFileName(given);
      expect(r.ok, given).toBe(false);
      if (!r.ok) {
        expect(r.reason, given).toMatch(why);
        expect(r.reason, given).toMatch(/; send the name without it$/);
        expect(r.reason, given).not.toMatch(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u);
      }
    }
  });

  it("keeps resolveWorkspacePath's refusals and their words", () => {
    for (const given of ['../etc/passwd', 'a/../b.log', 'C:\\x.log', 'file:///etc/passwd', '', '/etc/passwd', 'x'.repeat(300)]) {
      expect(exactFileName(given), given).toEqual(resolveWorkspacePath(given));
    }
  });
});
