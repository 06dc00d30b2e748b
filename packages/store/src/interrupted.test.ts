import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { getRun } from './run-detail.ts';
import { startStore } from './store.ts';

const CHILD = fileURLToPath(new URL('./interrupted-child.ts', import.meta.url));

/** Resolves with the run id once the child prints READY; rejects if it exits first. */
function waitForReady(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /READY ([0-9a-f-]{36})/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code, signal) => reject(new Error(`child exited (${code ?? signal}) before READY\n${out}\n${err}`)));
  });
}

describe('a run whose process is killed with SIGKILL', () => {
  let dir: string | undefined;
  let child: ChildProcess | undefined;
  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('reads back as interrupted, with the spans it had written', async () => {
    dir = await mkdtemp(join(tmpdir(), 'sandscope-kill9-'));
    const dataDir = join(dir, 'pglite');
    child = spawn(process.execPath, ['--import', 'tsx', CHILD, dataDir], { stdio: ['ignore', 'pipe', 'pipe'] });
    const runId = await waitForReady(child);

    const exited = new Promise<NodeJS.Signals | null>((resolve) => child!.on('exit', (_code, signal) => resolve(signal)));
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    const store = await startStore({ dataDir });
    try {
      expect(store.interruptedRunIds).toEqual([runId]);
      const detail = await getRun(store.db, runId);
      expect(detail?.run.status).toBe('interrupted');
      expect(detail?.run.error).toMatch(/^interrupted: its process \(child-\d+-/);
      expect(detail?.spans.map((s) => [s.seq, s.node, s.kind])).toEqual([
        [1, 'classify', 'start'],
        [2, 'classify', 'end'],
      ]);
    } finally {
      await store.close();
    }
  }, 120_000);
});
