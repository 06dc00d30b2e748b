import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describeCacheStoreContract } from '@sandscope/engine/testing/contracts';
import { type Database, openDatabase } from './database.ts';
import { DatabaseCacheStore } from './database-cache-store.ts';
import { migrate } from './migrator.ts';

const url = process.env.SANDSCOPE_TEST_DATABASE_URL;
if (!url) console.log('CacheStore contract on a Postgres server: skipped — set SANDSCOPE_TEST_DATABASE_URL to run it');

/**
 * The same contract on a real server, where the replica case means something: the
 * second store has its own connection pool, as another replica would. The server
 * is shared, so this run has its own schema, dropped afterwards.
 */
const schema = `sandscope_cache_${process.pid}_${randomBytes(4).toString('hex')}`;
let admin: pg.Client | undefined;
const opened: Database[] = [];

describeCacheStoreContract(
  `database (Postgres server ${url ? new URL(url).host : '—'})`,
  {
    async create() {
      admin = new pg.Client({ connectionString: url });
      await admin.connect();
      await admin.query(`create schema ${schema}`);
      const db = await openDatabase({ url, schema });
      opened.push(db);
      await migrate(db);
      return new DatabaseCacheStore(db);
    },
    async createReplica() {
      const db = await openDatabase({ url, schema });
      opened.push(db);
      return new DatabaseCacheStore(db);
    },
    async dispose() {
      for (const db of opened) await db.close();
      await admin?.query(`drop schema if exists ${schema} cascade`);
      await admin?.end();
    },
  },
  { skip: !url },
);
