/**
 * Creates the migrated PGlite data directory every agent of one security run
 * starts from (see PGLITE_TEMPLATE_VAR in service.ts): opened once with the
 * store's own start-up — migrations, lease — and closed, so the lease is
 * released and a copy opens as a clean, stopped database.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startStore } from '@sandscope/store';

export async function createPgliteTemplate(): Promise<{ dir: string; pglite: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'sandscope-security-template-'));
  const pglite = join(dir, 'pglite');
  const store = await startStore({ dataDir: pglite });
  await store.close();
  return { dir, pglite };
}
