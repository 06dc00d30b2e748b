import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describeSpendLedgerContract } from '@sandscope/engine/testing/contracts';
import { type Database, openDatabase } from './database.ts';
import { DatabaseSpendLedger } from './database-spend-ledger.ts';
import { migrate } from './migrator.ts';

const url = process.env.SANDSCOPE_TEST_DATABASE_URL;
if (!url) console.log('SpendLedger contract on a Postgres server: skipped — set SANDSCOPE_TEST_DATABASE_URL to run it');

/**
 * The same contract on a real server, where the replica case means something:
 * the second ledger has its own connection pool, as another replica would, and
 * the 1,000 contended reservations really do race on the server. The server is
 * shared, so this run has its own schema, dropped afterwards.
 */
const schema = `sandscope_spend_${process.pid}_${randomBytes(4).toString('hex')}`;
let admin: pg.Client | undefined;
let primary: Database | undefined;
const opened: Database[] = [];

describeSpendLedgerContract(
  `database (Postgres server ${url ? new URL(url).host : '—'})`,
  {
    async create(options) {
      if (!primary) {
        admin = new pg.Client({ connectionString: url });
        await admin.connect();
        await admin.query(`create schema ${schema}`);
        primary = await openDatabase({ url, schema });
        opened.push(primary);
        await migrate(primary);
      }
      await primary.exec('delete from spend_hold; delete from spend_day;');
      return new DatabaseSpendLedger(primary, options);
    },
    async createReplica(options) {
      const db = await openDatabase({ url, schema });
      opened.push(db);
      return new DatabaseSpendLedger(db, options);
    },
    async dispose() {
      for (const db of opened) await db.close();
      await admin?.query(`drop schema if exists ${schema} cascade`);
      await admin?.end();
    },
  },
  { skip: !url },
);
