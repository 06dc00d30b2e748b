import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const TSX = join(import.meta.dirname, '..', '..', '..', 'node_modules', '.bin', 'tsx');

/** A child that prints far more than a pipe holds, then writes a file: what a command that prints and writes does. */
async function printMuchThenWrite(tolerate: boolean) {
  const dir = await mkdtemp(join(tmpdir(), 'sandscope-pipe-'));
  const done = join(dir, 'written');
  const source = [
    tolerate ? `import { tolerateClosedPipe } from ${JSON.stringify(join(import.meta.dirname, 'closed-pipe.ts'))}; tolerateClosedPipe();` : '',
    `import { writeFileSync } from 'node:fs';`,
    `for (let i = 0; i < 20000; i++) console.log('line ' + i + ' of what a person piped into head');`,
    `await new Promise((r) => setTimeout(r, 200));`,
    `writeFileSync(${JSON.stringify(done)}, 'done');`,
  ].join('\n');
  const child = spawn(TSX, ['--input-type=module', '-e', source], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += String(d);
  });
  // the reader takes its first chunk and goes away, as `head -1` does
  child.stdout.once('data', () => child.stdout.destroy());
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const written = existsSync(done);
  await rm(dir, { recursive: true, force: true });
  return { code, stderr, written };
}

describe('a closed pipe', () => {
  it('ends no command with a stack trace: it finishes its work, writes its file, and exits with its own code', async () => {
    const run = await printMuchThenWrite(true);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.written).toBe(true);
  }, 30_000);

  it('(the defect, without it: EPIPE as a stack trace, and the file never written)', async () => {
    const run = await printMuchThenWrite(false);
    expect(run.stderr).toContain('EPIPE');
    expect(run.written).toBe(false);
  }, 30_000);

  it('the CLI: `sandscope eval --json --rows | head -1` prints no stack trace and exits 0', async () => {
    const bin = join(import.meta.dirname, '..', 'bin', 'sandscope.js');
    const corpus = join(import.meta.dirname, '..', '..', '..', 'corpus');
    const child = spawn(process.execPath, [bin, 'eval', '--corpus', corpus, '--json', '--rows'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += String(d);
    });
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  }, 180_000);
});
