import { describeCacheStoreContract } from '@sandscope/engine/testing/contracts';
import { type Database, openDatabase } from './database.ts';
import { DatabaseCacheStore } from './database-cache-store.ts';
import { migrate } from './migrator.ts';

let db: Database | undefined;

// One embedded database is one process's: the "replica" is a second store over the same database.
describeCacheStoreContract('database (PGlite memory://)', {
  async create() {
    db = await openDatabase({ dataDir: 'memory://' });
    await migrate(db);
    return new DatabaseCacheStore(db);
  },
  createReplica: async () => new DatabaseCacheStore(db!),
  dispose: async () => db?.close(),
});
