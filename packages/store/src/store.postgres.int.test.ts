import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { describeStoreContract } from './store.contract.ts';
import { openDatabase } from './database.ts';

const url = process.env.SANDSCOPE_TEST_DATABASE_URL;
if (!url) console.log('store contract on a Postgres server: skipped — set SANDSCOPE_TEST_DATABASE_URL to run it');

/**
 * The same contract against a real server. The session and CI share that
 * server, so each run gets its own schema, dropped afterwards.
 */
describeStoreContract(
  `Postgres server (${url ? new URL(url).host : 'no SANDSCOPE_TEST_DATABASE_URL'})`,
  async () => {
    const schema = `sandscope_test_${process.pid}_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    // Asked of the catalog independently of the migrator: what should this server report?
    const { rows } = await admin.query("select 1 from pg_available_extensions where name = 'vector'");
    const db = await openDatabase({ url, schema });
    return {
      db,
      expectedVectorSearch: rows.length > 0 ? 'pgvector' : 'in-process',
      async dispose() {
        await db.close();
        await admin.query(`drop schema ${schema} cascade`);
        await admin.end();
      },
    };
  },
  { skip: !url },
);
