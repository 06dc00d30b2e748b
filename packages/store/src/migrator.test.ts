import { STORE_TABLES } from './store.contract.ts';
import { describe, expect, it } from 'vitest';
import { PGVECTOR_MIGRATION_VERSION, readMigrations } from './migrator.ts';

describe('migration files', () => {
  it('are numbered 1..n without gaps, and only the pgvector one is conditional', async () => {
    const migrations = await readMigrations();
    expect(migrations.map((m) => m.version)).toEqual(migrations.map((_, i) => i + 1));
    const conditional = migrations.filter((m) => m.requiresExtension !== null);
    expect(conditional.map((m) => [m.version, m.name, m.requiresExtension])).toEqual([[PGVECTOR_MIGRATION_VERSION, 'chunk_embedding_pgvector', 'vector']]);
  });

  it('create each table in exactly one migration; a dropped table is gone from the store', async () => {
    const migrations = await readMigrations();
    const created = migrations.flatMap((m) => [...m.sql.matchAll(/^create table (\w+)/gim)].map((x) => x[1]));
    const dropped = new Set(migrations.flatMap((m) => [...m.sql.matchAll(/^drop table (\w+)/gim)].map((x) => x[1])));
    expect(created.filter((t) => !dropped.has(t)).sort()).toEqual([...STORE_TABLES].sort());
    expect(new Set(created).size).toBe(created.length);
  });
});
