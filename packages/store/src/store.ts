import { type Database, openDatabase, type OpenDatabaseOptions } from './database.ts';
import { type MigrationReport, migrate, type VectorSearch } from './migrator.ts';
import { claimOwnerLease, type OwnerLease, type OwnerLeaseOptions } from './owner-lease.ts';
import { markInterrupted } from './run-repository.ts';

export interface StartStoreOptions extends OpenDatabaseOptions {
  /** This process's id, recorded on every run it executes. Defaults to a fresh uuid. */
  ownerId?: string;
  /** A database already opened, used instead of url/dataDir and closed by close() (a test's simulateOutage). */
  database?: Database;
  /** How the lease watches and renews itself (defect 4); the defaults suit a service. */
  lease?: OwnerLeaseOptions;
}

/** An open, migrated, recovered database, owned by this process until close(). */
export interface Store {
  readonly db: Database;
  readonly ownerId: string;
  /** This process's ownership of its runs: renewed after a reconnect, asked before a run is admitted (defect 4). */
  readonly lease: OwnerLease;
  readonly vectorSearch: VectorSearch;
  readonly migrations: MigrationReport;
  /** Runs found 'running' at start-up whose process was gone, now 'interrupted'. */
  readonly interruptedRunIds: string[];
  close(): Promise<void>;
}

/**
 * The start-up sequence, in the order that makes it correct: open, migrate,
 * take this process's lease, and only then interrupt runs whose owners hold
 * no lease — so a run can never be marked interrupted by its own live process.
 * Loading the corpus is the caller's next step (loadCorpus).
 */
export async function startStore(options: StartStoreOptions = {}): Promise<Store> {
  const db = options.database ?? (await openDatabase(options));
  let lease: OwnerLease | undefined;
  try {
    const migrations = await migrate(db);
    lease = await claimOwnerLease(db, options.ownerId, options.lease);
    const interruptedRunIds = await markInterrupted(db, { ownerId: lease.ownerId });
    const held = lease;
    return {
      db,
      ownerId: held.ownerId,
      lease: held,
      vectorSearch: migrations.vectorSearch,
      migrations,
      interruptedRunIds,
      async close() {
        await held.release();
        await db.close();
      },
    };
  } catch (error) {
    await lease?.release().catch(() => {});
    await db.close().catch(() => {});
    throw error;
  }
}
