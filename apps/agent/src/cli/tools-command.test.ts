import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it, vi } from 'vitest';
import { main } from './main.ts';
import { captureOutput } from './testing/capture-output.ts';

const io = captureOutput();
const tmp = mkdtempSync(join(tmpdir(), 'sandscope-tools-'));
afterAll(() => {
  vi.unstubAllEnvs();
  rmSync(tmp, { recursive: true, force: true });
});

// S-237: a colleague's audit set TOOLS_DIR to a file and was told "internal error: EEXIST … This is a bug".
it('tools build with TOOLS_DIR naming a file says so in one line, and leaves the file as it was', async () => {
  const file = join(tmp, 'afile');
  writeFileSync(file, 'mine\n');
  vi.stubEnv('SANDSCOPE_DATA_DIR', join(tmp, 'data'));
  vi.stubEnv('TOOLS_DIR', file);
  expect(await main(['tools', 'build'])).toBe(2);
  expect(io.err).toBe(`sandscope: TOOLS_DIR ${file} is a file, not a folder; point TOOLS_DIR at a directory (it is made if missing).\n`);
  expect(readFileSync(file, 'utf8')).toBe('mine\n');
});
