import { describeSpendLedgerContract } from '@sandscope/engine/testing/contracts';
import { type Database, openDatabase } from './database.ts';
import { DatabaseSpendLedger } from './database-spend-ledger.ts';
import { migrate } from './migrator.ts';

let db: Database | undefined;

// One embedded database is one process's: the "replica" is a second ledger over the same database.
// One PGlite for the file (a fresh one takes seconds); each case starts from emptied tables.
describeSpendLedgerContract('database (PGlite memory://)', {
  async create(options) {
    if (!db) {
      db = await openDatabase({ dataDir: 'memory://' });
      await migrate(db);
    }
    await db.exec('delete from spend_hold; delete from spend_day;');
    return new DatabaseSpendLedger(db, options);
  },
  createReplica: async (options) => new DatabaseSpendLedger(db!, options),
  dispose: async () => db?.close(),
});
