import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { startStore } from '@sandscope/store';
import { describeApprovalRace } from './testing/approval-race-suite.ts';

const url = process.env.SANDSCOPE_TEST_DATABASE_URL;
if (!url) console.log('concurrent approvals on a Postgres server: skipped — set SANDSCOPE_TEST_DATABASE_URL to run it');

/** The server is shared (CI's `test` database), so this file works in its own schema and drops it afterwards. */
describeApprovalRace(
  `Postgres server (${url ? new URL(url).host : 'no SANDSCOPE_TEST_DATABASE_URL'})`,
  async () => {
    const schema = `sandscope_race_${process.pid}_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    const store = await startStore({ url: url!, schema });
    return {
      store,
      async dispose() {
        await store.close();
        await admin.query(`drop schema if exists ${schema} cascade`);
        await admin.end();
      },
    };
  },
  { skip: !url },
);
