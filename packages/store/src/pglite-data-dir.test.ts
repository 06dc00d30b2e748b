import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { openDatabase } from './database.ts';
import { folderSnapshot as snapshot } from './testing/folder-snapshot.ts';
import { describeThrown } from './thrown.ts';

/**
 * A `pglite` folder that holds files but no database: PGlite wrote its database files among them, then failed on a
 * file named `base` ("internal error: [object Object]. This is a bug", exit 1), or with only unrelated files quietly
 * built a database beside them. It is refused before anything is written, and an empty, absent or existing database
 * folder still opens.
 */
const tmp = mkdtempSync(join(tmpdir(), 'sandscope-data-dir-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

/** What macOS and Windows leave in a folder they have shown (bytes like theirs), and what the check lets be. */
const LITTER = {
  '.DS_Store': '\u0000\u0000\u0000\u0001Bud1',
  '._notes.txt': '\u0000\u0005\u0016\u0007',
  'Thumbs.db': '\u00d0\u00cf\u0011\u00e0',
  // Windows does not tell names apart by case: desktop.ini as it is sometimes written.
  'Desktop.ini': '[.ShellClassInfo]\r\n',
};

/** A SANDSCOPE_DATA_DIR of its own for each case; returns its pglite/ folder (not made). */
function dataDirNamed(name: string): string {
  const dir = join(tmp, name);
  mkdirSync(dir);
  return join(dir, 'pglite');
}

describe('an embedded database folder holding files but no database', () => {
  it.each([
    ['a file named base (PGlite failed on it with ErrnoError 54)', { base: 'not a folder\n' }],
    ['a folder of unrelated files (PGlite built a database among them)', { 'notes.txt': 'mine\n', 'photo.jpg': '\u00ff\u00d8\u00ff', 'todo.md': '- x\n' }],
  ])('%s: is refused naming the folder and what to do, and left byte for byte as it was', async (_, files) => {
    const pglite = dataDirNamed(Object.keys(files).join('-').replace(/\W/g, ''));
    mkdirSync(pglite);
    for (const [name, text] of Object.entries(files)) writeFileSync(join(pglite, name), text);
    mkdirSync(join(pglite, 'sub'));
    writeFileSync(join(pglite, 'sub', 'kept'), 'kept\n');
    const parent = join(pglite, '..');
    const before = snapshot(parent);

    const error = await openDatabase({ dataDir: pglite }).then(
      async (db) => {
        await db.close();
        return undefined;
      },
      (e: unknown) => e,
    );
    expect(error).toMatchObject({
      name: 'StoreError',
      code: 'data_dir_not_database',
      message: expect.stringContaining(`the embedded database folder ${pglite} holds files but no database`),
      remedy: expect.stringMatching(/Nothing in it was changed\. Set SANDSCOPE_DATA_DIR to another folder .*or move those files elsewhere/),
    });
    expect((error as Error).message).toContain(Object.keys(files).sort()[0]);
    expect(`${(error as Error).message}. ${(error as { remedy: string }).remedy}`).not.toContain('\n');
    // The folder and its parent (where the .owner claim is made and given back) are as they were.
    expect(snapshot(parent)).toEqual(before);
  });

  it("the operating system's files beside someone's file: still refused, naming their file and not the litter", async () => {
    const pglite = dataDirNamed('litter-and-notes');
    mkdirSync(pglite);
    for (const [name, bytes] of Object.entries({ ...LITTER, 'notes.txt': 'mine\n' })) writeFileSync(join(pglite, name), bytes);
    const parent = join(pglite, '..');
    const before = snapshot(parent);
    await expect(openDatabase({ dataDir: pglite })).rejects.toMatchObject({
      code: 'data_dir_not_database',
      message: `the embedded database folder ${pglite} holds files but no database (notes.txt; no PG_VERSION), so none is made among them`,
    });
    expect(snapshot(parent)).toEqual(before);
  });

  it("a folder holding only the operating system's files (.DS_Store, ._*, Thumbs.db, Desktop.ini) opens as a new database, and they are left as they were", async () => {
    // S-205: it was refused as someone's files ("holds files but no database (.DS_Store; …)"), and told to move them.
    const pglite = dataDirNamed('litter-only');
    mkdirSync(pglite);
    for (const [name, bytes] of Object.entries(LITTER)) writeFileSync(join(pglite, name), bytes);
    const before = snapshot(pglite);
    const db = await openDatabase({ dataDir: pglite });
    expect(await db.query<{ one: number }>('select 1 as one')).toEqual([{ one: 1 }]);
    await db.close();
    expect(existsSync(join(pglite, 'PG_VERSION'))).toBe(true);
    const after = snapshot(pglite);
    for (const name of Object.keys(LITTER)) expect(after[join(pglite, name)], name).toBe(before[join(pglite, name)]);
  }, 120_000);

  it('an absent folder opens (and is made), and opens again as the database it now holds', async () => {
    const pglite = dataDirNamed('absent');
    const db = await openDatabase({ dataDir: pglite });
    await db.exec('create table kept (note text); insert into kept values ($$still here$$)');
    await db.close();
    expect(existsSync(join(pglite, 'PG_VERSION'))).toBe(true);
    const again = await openDatabase({ dataDir: pglite });
    expect(await again.query<{ note: string }>('select note from kept')).toEqual([{ note: 'still here' }]);
    await again.close();
  }, 120_000);

  it('an empty folder opens', async () => {
    const pglite = dataDirNamed('empty');
    mkdirSync(pglite);
    const db = await openDatabase({ dataDir: pglite });
    expect(await db.query<{ one: number }>('select 1 as one')).toEqual([{ one: 1 }]);
    await db.close();
  }, 120_000);
});

describe('a data folder path that is a file', () => {
  it('SANDSCOPE_DATA_DIR/pglite a file: the setting is named, not written to', async () => {
    const pglite = dataDirNamed('pglite-is-a-file');
    writeFileSync(pglite, 'a file\n');
    await expect(openDatabase({ dataDir: pglite })).rejects.toMatchObject({
      code: 'data_dir_unusable',
      message: expect.stringContaining(`${pglite} is a file, not a folder`),
    });
    expect(readFileSync(pglite, 'utf8')).toBe('a file\n');
  });

  it('SANDSCOPE_DATA_DIR a file: the setting is named, not written to', async () => {
    const file = join(tmp, 'data-dir-is-a-file');
    writeFileSync(file, 'a file\n');
    await expect(openDatabase({ dataDir: join(file, 'pglite') })).rejects.toMatchObject({
      code: 'data_dir_unusable',
      message: expect.stringMatching(/ENOTDIR .*a part of that path is a file, not a folder/),
    });
    expect(readFileSync(file, 'utf8')).toBe('a file\n');
  });
});

describe("PGlite's other failures to open", () => {
  it("its ErrnoError (no Error) names the folder and the errno, not [object Object], and the folder's claim is given back", async () => {
    const pglite = dataDirNamed('errno');
    // What PGlite threw for a `base` file in the folder: Emscripten's ErrnoError, which is not an Error.
    vi.spyOn(PGlite, 'create').mockRejectedValueOnce({ name: 'ErrnoError', errno: 54 });
    const error = await openDatabase({ dataDir: pglite }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      name: 'StoreError',
      code: 'database_unopenable',
      message: `the embedded database at ${pglite} could not be opened (ErrnoError ENOTDIR (errno 54))`,
      remedy: expect.stringContaining('SANDSCOPE_DATA_DIR'),
    });
    expect(existsSync(`${pglite}.owner`)).toBe(false);
  });

  it('a damaged database (PG_VERSION and nothing else) names the folder and what PGlite said', async () => {
    const pglite = dataDirNamed('damaged');
    mkdirSync(pglite);
    writeFileSync(join(pglite, 'PG_VERSION'), '17\n');
    await expect(openDatabase({ dataDir: pglite })).rejects.toMatchObject({
      code: 'database_unopenable',
      message: expect.stringContaining(`the embedded database at ${pglite} could not be opened (`),
    });
  }, 120_000);
});

describe('describeThrown', () => {
  it('says an Error by its message, and a thrown object by its name, code, errno and message', () => {
    expect(describeThrown(new Error('disk on fire'))).toBe('disk on fire');
    expect(describeThrown({ name: 'ErrnoError', errno: 44 })).toBe('ErrnoError ENOENT (errno 44)');
    expect(describeThrown({ errno: 999, message: 'odd' })).toBe('error errno 999 odd');
    expect(describeThrown({ code: 'EACCES' })).toBe('error EACCES');
    expect(describeThrown('a string')).toBe('a string');
    expect(describeThrown(undefined)).toBe('undefined');
  });
});
