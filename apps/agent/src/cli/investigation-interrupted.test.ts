import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startStubOpenAIServer, type StubOpenAIServer } from '@sandscope/engine/testing';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from './main.ts';
import { captureOutput } from './testing/capture-output.ts';

/**
 * S-270 at the command line: a turn the person stops with Ctrl-C was killed with the command, and its question stayed
 * in the conversation with nothing after it — `show` printed it as if its answer were still coming, for ten minutes
 * and after. Now Ctrl-C stops the turn, which stores why it ended; the command says so in one line (exit 130), and
 * `show` says the question was not answered and to ask it again. The turn's provider is a stub that never answers,
 * so the turn is surely still going when the signal comes; the command runs as its own process, as a person runs it.
 */
const io = captureOutput();
const tmp = mkdtempSync(join(tmpdir(), 'sandscope-interrupted-'));
const BIN = resolve(import.meta.dirname, '../../bin/sandscope.js');
let stub: StubOpenAIServer;

beforeAll(async () => {
  stub = await startStubOpenAIServer({ fallback: { kind: 'hang' } });
  vi.stubEnv('SANDSCOPE_DATA_DIR', join(tmp, 'data'));
  vi.stubEnv('DATABASE_URL', '');
});
afterAll(async () => {
  vi.unstubAllEnvs();
  await stub?.close();
  rmSync(tmp, { recursive: true, force: true });
});

describe('sandscope investigation ask, stopped with Ctrl-C (S-270)', () => {
  it('says in one line that the turn was stopped and the question kept (exit 130); show says it was not answered, and to ask again', async () => {
    expect(await main(['investigation', 'new', 'checkout', '502s'])).toBe(0);
    const id = io.out.trim();
    const log = join(tmp, 'app.log');
    writeFileSync(log, '2024-05-14T03:12:01Z ERROR upstream timeout to payments-api\n');
    expect(await main(['investigation', 'add', id, log])).toBe(0);

    const child = spawn(process.execPath, [BIN, 'investigation', 'ask', id, 'why did payments-api time out?'], {
      env: { ...process.env, SANDSCOPE_DATA_DIR: join(tmp, 'data'), DATABASE_URL: '', GROQ_API_KEY: 'stub-key-0123', GROQ_BASE_URL: stub.baseURL },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stdout = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => child.on('exit', (code, signal) => done({ code, signal })));
    const deadline = Date.now() + 60_000;
    while (stub.requests.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(stub.requests.length, stderr).toBeGreaterThan(0);
    child.kill('SIGINT');
    const { code, signal } = await exited;

    expect({ code, signal }).toEqual({ code: 130, signal: null });
    expect(stdout).toBe('');
    expect(stderr).toBe(
      'sandscope: The turn was stopped at the command line (Ctrl-C) before it was answered. Your question is kept in the conversation, marked not answered (`npx sandscope investigation show ID`): ask it again.\n',
    );

    io.out = '';
    expect(await main(['investigation', 'show', id])).toBe(0);
    expect(io.out).toContain(
      'You: why did payments-api time out?\n' +
        `  — Not answered: The turn was stopped at the command line (Ctrl-C) before it was answered. Ask it again: \`npx sandscope investigation ask ${id} …\`\n`,
    );
    io.out = '';
    expect(await main(['investigation', 'show', id, '--json'])).toBe(0);
    expect(JSON.parse(io.out).messages).toMatchObject([
      { role: 'user', interrupted: { code: 'interrupted', reason: 'The turn was stopped at the command line (Ctrl-C) before it was answered.' } },
    ]);
  }, 120_000);
});
