import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import type { Database, Queryable } from './database.ts';
import { StoreError } from './store-error.ts';

/** A numbered SQL file. Append-only: once applied, its text must never change (STYLE 10). */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
  /** From a `-- requires-extension: <name>` line: applied only where that extension is available. */
  readonly requiresExtension: string | null;
}

/** How chunk similarity is computed on this database — said once at start-up. */
export type VectorSearch = 'pgvector' | 'in-process';

export interface MigrationReport {
  /** Versions applied by this call, in order. */
  readonly applied: number[];
  /** Conditional versions recorded as skipped by this call (their extension is unavailable). */
  readonly skipped: number[];
  readonly vectorSearch: VectorSearch;
}

export const MIGRATIONS_DIR = new URL('../migrations/', import.meta.url);

/** The version of the migration that adds the pgvector column; its outcome decides VectorSearch. */
export const PGVECTOR_MIGRATION_VERSION = 14;

/** Namespace (first key) of the store's advisory locks. */
export const ADVISORY_LOCK_NAMESPACE = 0x5a5d;
const MIGRATION_LOCK_KEY = 0;

const FILE_NAME = /^(\d{4})_([a-z0-9_]+)\.sql$/;
const REQUIRES = /^--\s*requires-extension:\s*([a-z0-9_]+)\s*$/m;

/** Reads `NNNN_name.sql` files in version order; rejects gaps and duplicates, which would mean a lost or clashing file. */
export async function readMigrations(dir: URL = MIGRATIONS_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.sql')).sort();
  const migrations: Migration[] = [];
  for (const file of files) {
    const m = FILE_NAME.exec(file);
    if (!m) throw new StoreError('migration_failed', `migration file "${file}" is not named NNNN_snake_case.sql`);
    const sql = await readFile(new URL(file, dir), 'utf8');
    migrations.push({ version: Number(m[1]), name: m[2]!, sql, requiresExtension: REQUIRES.exec(sql)?.[1] ?? null });
  }
  migrations.forEach((mig, i) => {
    if (mig.version !== i + 1) {
      throw new StoreError('migration_failed', `migration versions must run 1..n without gaps; found ${mig.version} at position ${i + 1}`);
    }
  });
  return migrations;
}

export function checksumOf(sql: string): string {
  return createHash('sha256').update(sql).digest('hex');
}

const BOOTSTRAP = `
create table if not exists schema_migrations (
  version    int primary key,
  name       text not null,
  checksum   text not null,
  -- 'skipped' only for a conditional migration whose extension was unavailable.
  outcome    text not null check (outcome in ('applied', 'skipped')),
  applied_at timestamptz not null default now()
)`;

interface AppliedRow {
  version: number;
  name: string;
  checksum: string;
  outcome: 'applied' | 'skipped';
}

async function lock(tx: Queryable): Promise<void> {
  // Replicas starting together take turns; each re-reads what is applied under the lock.
  await tx.query('select pg_advisory_xact_lock($1, $2)', [ADVISORY_LOCK_NAMESPACE, MIGRATION_LOCK_KEY]);
}

async function extensionAvailable(q: Queryable, name: string): Promise<boolean> {
  const rows = await q.query('select 1 from pg_available_extensions where name = $1', [name]);
  return rows.length > 0;
}

/**
 * Applies pending migrations in order, each in its own transaction together
 * with its schema_migrations row, so a failure leaves neither. Re-running is a
 * no-op. A conditional migration whose extension is unavailable is still
 * recorded — as 'skipped' — so the table says what this database is; if the
 * extension later appears, that migration is applied on the next start-up
 * (it may depend only on migrations before it, and none may depend on it).
 * An applied file whose text changed is refused: migrations are append-only.
 */
export async function migrate(db: Database, migrations?: readonly Migration[]): Promise<MigrationReport> {
  const all = migrations ?? (await readMigrations());
  await db.transaction(async (tx) => {
    await lock(tx);
    await tx.exec(BOOTSTRAP);
  });

  const applied: number[] = [];
  const skipped: number[] = [];
  for (const migration of all) {
    const checksum = checksumOf(migration.sql);
    await db.transaction(async (tx) => {
      await lock(tx);
      const [row] = await tx.query<AppliedRow>('select version, name, checksum, outcome from schema_migrations where version = $1', [migration.version]);
      if (row && row.checksum !== checksum) {
        throw new StoreError(
          'migration_edited',
          `migration ${migration.version} (${row.name}) was applied with different text than ${String(migration.version).padStart(4, '0')}_${migration.name}.sql has now`,
        );
      }
      if (row?.outcome === 'applied') return;
      const available = migration.requiresExtension === null || (await extensionAvailable(tx, migration.requiresExtension));
      if (!available) {
        if (!row) {
          await tx.query("insert into schema_migrations (version, name, checksum, outcome) values ($1, $2, $3, 'skipped')", [
            migration.version,
            migration.name,
            checksum,
          ]);
          skipped.push(migration.version);
        }
        return;
      }
      try {
        await tx.exec(migration.sql);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new StoreError('migration_failed', `migration ${migration.version} (${migration.name}) failed: ${reason}`, {
          cause: error,
        });
      }
      await tx.query(
        `insert into schema_migrations (version, name, checksum, outcome) values ($1, $2, $3, 'applied')
         on conflict (version) do update set outcome = 'applied', applied_at = now()`,
        [migration.version, migration.name, checksum],
      );
      applied.push(migration.version);
    });
  }
  return { applied, skipped, vectorSearch: await detectVectorSearch(db) };
}

/** 'pgvector' exactly when the vector-column migration is recorded as applied — not merely when the extension exists. */
export async function detectVectorSearch(db: Queryable): Promise<VectorSearch> {
  const rows = await db.query<{ outcome: string }>('select outcome from schema_migrations where version = $1', [PGVECTOR_MIGRATION_VERSION]);
  return rows[0]?.outcome === 'applied' ? 'pgvector' : 'in-process';
}

export interface AppliedMigration {
  readonly version: number;
  readonly name: string;
  readonly outcome: 'applied' | 'skipped';
  readonly appliedAt: string;
}

export async function appliedMigrations(db: Queryable): Promise<AppliedMigration[]> {
  const rows = await db.query<{ version: number; name: string; outcome: 'applied' | 'skipped'; applied_at: Date }>(
    'select version, name, outcome, applied_at from schema_migrations order by version',
  );
  return rows.map((r) => ({ version: r.version, name: r.name, outcome: r.outcome, appliedAt: r.applied_at.toISOString() }));
}
