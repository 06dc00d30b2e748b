import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { claimPgliteOwner } from './pglite-owner.ts';
import { openDatabase } from './database.ts';
import { openPgliteDatabase } from './pglite-database.ts';

/** S-135: one process at a time opens an embedded database folder. */
describe('the owner of an embedded database folder', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'sandscope-owner-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it('refuses while another live process holds it, naming its pid and what to do', () => {
    const dir = join(tmp, 'held');
    // pid 1 is alive on every machine, and is never this test.
    writeFileSync(`${dir}.owner`, '1\n');
    expect(() => claimPgliteOwner(dir)).toThrow(expect.objectContaining({ code: 'database_in_use', message: expect.stringContaining('pid 1') }));
    expect(readFileSync(`${dir}.owner`, 'utf8')).toBe('1\n');
  });

  it("takes over a crashed process's leftover, and gives the folder back on release", () => {
    const dir = join(tmp, 'crashed');
    const gone = spawnSync(process.execPath, ['-e', '']).pid!;
    writeFileSync(`${dir}.owner`, `${gone}\n`);
    const release = claimPgliteOwner(dir);
    expect(readFileSync(`${dir}.owner`, 'utf8')).toBe(`${process.pid}\n`);
    release();
    expect(existsSync(`${dir}.owner`)).toBe(false);
  });

  it('a folder that cannot be made or written is the setting, named, not an internal error (S-143)', async () => {
    const file = join(tmp, 'a-file');
    writeFileSync(file, 'not a folder');
    const unusable = expect.objectContaining({
      code: 'data_dir_unusable',
      message: expect.stringContaining('ENOTDIR'),
      remedy: expect.stringContaining('SANDSCOPE_DATA_DIR'),
    });
    expect(() => claimPgliteOwner(join(file, 'pglite'))).toThrow(unusable);
    await expect(openDatabase({ dataDir: join(file, 'pglite') })).rejects.toEqual(unusable);
  });

  it('a second opener beside a live database is refused before PGlite reads the folder; after close it opens', async () => {
    const dir = join(tmp, 'pglite');
    const first = await openPgliteDatabase(dir);
    // Another process's claim, as the first one's file would read to it.
    writeFileSync(`${dir}.owner`, '1\n');
    await expect(openPgliteDatabase(dir)).rejects.toMatchObject({ code: 'database_in_use' });
    writeFileSync(`${dir}.owner`, `${process.pid}\n`);
    await first.close();
    expect(existsSync(`${dir}.owner`)).toBe(false);
    const again = await openPgliteDatabase(dir);
    expect(await again.query<{ one: number }>('select 1 as one')).toEqual([{ one: 1 }]);
    await again.close();
  }, 60_000);
});
