import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fingerprintOf, parseAllowlist, scanHistory, scanLine, scanTree } from './secret-scan.ts';

/*
 * Every sample is assembled at run time from pieces, so this file holds no
 * line shaped like a key: the scan it tests reads this file too.
 */
const join2 = (...parts: string[]) => parts.join('');
const SAMPLES: Record<string, string> = {
  'private-key': join2('-----BEGIN ', 'RSA PRIVATE KEY-----'),
  'aws-access-key-id': join2('AKIA', 'Q3EXAMPLE7KEYID0'),
  'aws-secret-access-key': join2('aws_secret_access_key = ', 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'),
  'anthropic-key': join2('sk-ant-', 'api03-', 'a'.repeat(40)),
  'openrouter-key': join2('sk-or-v1-', 'ab12'.repeat(16)),
  'openai-key': join2('sk-proj-', 'Ab3'.repeat(16)),
  'groq-key': join2('gsk_', 'Zx9'.repeat(14)),
  'cerebras-key': join2('csk-', 'q7'.repeat(20)),
  'google-api-key': join2('AIza', 'SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q'),
  'github-token': join2('ghp_', 'A1'.repeat(18)),
  'slack-token': join2('xoxb-', '1234567890-abcdefghij'),
  'stripe-key': join2('sk_', 'live_', 'Q'.repeat(24)),
  'bearer-token': join2('Authorization: Bearer ', 'f00d'.repeat(8)),
};

describe('secret scan: key shapes', () => {
  for (const [rule, sample] of Object.entries(SAMPLES)) {
    it(`finds a ${rule}, named for what it is`, () => {
      const found = scanLine(`const x = "${sample}";`, { path: 'x.ts', line: 3 });
      expect(found.map((f) => f.rule)).toEqual([rule]);
      expect(found[0]!.masked).not.toContain(sample.slice(8));
      expect(found[0]!.fingerprint).toMatch(/^sha256:[0-9a-f]{16}$/);
    });
  }

  it('leaves what only looks like a key alone', () => {
    const innocent = [
      'headers: { authorization: `Bearer ${TOKEN}` }',
      'Send Authorization: Bearer <AGENT_TOKEN>, the value the agent was started with.',
      'import sklearn  # sk-learn',
      'const prefix = "gsk_";',
      'AKIA is the prefix of an AWS access key id',
      '-----BEGIN PUBLIC KEY-----',
    ];
    for (const line of innocent) expect(scanLine(line, { path: 'x.ts', line: 1 })).toEqual([]);
  });
});

describe('secret scan: allowlist', () => {
  it('reads fingerprint, path, rule and a reason; refuses an entry without a reason', () => {
    const entries = parseAllowlist('# comment\n\nsha256:0123456789abcdef a/b.test.ts groq-key # a fixture\n', 'allow');
    expect(entries).toEqual([{ fingerprint: 'sha256:0123456789abcdef', path: 'a/b.test.ts', rule: 'groq-key', why: 'a fixture', lineNo: 3 }]);
    expect(() => parseAllowlist('sha256:0123456789abcdef a/b.test.ts groq-key\n', 'allow')).toThrow(/why it is fake/);
  });

  it('fingerprints the matched text, so a different key in the same file is not covered', () => {
    expect(fingerprintOf(SAMPLES['groq-key']!)).not.toBe(fingerprintOf(`${SAMPLES['groq-key']!}x`));
  });
});

describe('secret scan: tree and history', () => {
  const repo = mkdtempSync(join(tmpdir(), 'secret-scan-test-'));
  afterAll(() => rmSync(repo, { recursive: true, force: true }));
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], { encoding: 'utf8' });

  it('finds a key that was committed and deleted in the history, not in the tree; an untracked file in the tree', async () => {
    git('init', '-q');
    writeFileSync(join(repo, 'config.ts'), `export const key = "${SAMPLES['aws-access-key-id']}";\n`);
    git('add', '.');
    git('commit', '-qm', 'add a key');
    unlinkSync(join(repo, 'config.ts'));
    writeFileSync(join(repo, 'readme.md'), 'nothing here\n');
    git('add', '-A');
    git('commit', '-qm', 'remove it');
    writeFileSync(join(repo, 'scratch.ts'), `const t = "${SAMPLES['openai-key']}";\n`);

    const tree = scanTree(repo);
    expect(tree.findings.map((f) => [f.path, f.rule])).toEqual([['scratch.ts', 'openai-key']]);
    const history = await scanHistory(repo);
    expect(history.commits).toBe(2);
    expect(history.findings.map((f) => [f.path, f.line, f.rule])).toEqual([['config.ts', 1, 'aws-access-key-id']]);
    expect(history.findings[0]!.commit).toMatch(/^[0-9a-f]{40}$/);
  });
});
