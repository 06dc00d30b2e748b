import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');
const run = (...files: string[]) =>
  execFileSync(process.execPath, ['--import', 'tsx', join(root, 'scripts/eval-groups.ts'), ...files], { cwd: root, encoding: 'utf8', stdio: 'pipe' });

/** A rows file of one corpus: answerable questions rated `lift` above the unanswerable ones' spread. */
function rowsFile(corpus: string, lift: number): string {
  const questions = Array.from({ length: 40 }, (_, i) => ({
    id: `q${i}`,
    corpus,
    label: i % 2 ? 'answerable' : 'unanswerable',
    verdict: 'refused',
    answerability: Math.min(1, ((i * 7) % 40) / 40 + (i % 2 ? lift : 0)),
  }));
  const file = join(mkdtempSync(join(tmpdir(), 'groups-')), `${corpus}.json`);
  writeFileSync(file, JSON.stringify({ questions }));
  return file;
}

describe('npm run eval:groups', () => {
  it('prints each group a run holds, the unread corpora pooled, and the difference between two runs with its interval', () => {
    const out = run(rowsFile('nats', 0), rowsFile('nats', 0.3));
    expect(out).toMatch(/ {2}pending-2 +n= {2}40 /);
    expect(out).toMatch(/ {2}unread +n= {2}40 /);
    expect(out).not.toMatch(/ {2}seen +n=/);
    expect(out).toMatch(/pending-2 +corpora {2}1 {2}ΔAUC \+0\.\d{4} \[/);
  });

  it('says two runs that share no question cannot be compared, instead of failing', () => {
    const out = run(rowsFile('nats', 0), rowsFile('govuk-alerts', 0));
    expect(out).toMatch(/no question was scored in both runs: compare runs that held out the same corpora/);
    expect(out).not.toMatch(/internal error/);
  });
});
