import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from './database.ts';
import { migrate } from './migrator.ts';
import { claimOwnerLease, type OwnerLease } from './owner-lease.ts';
import { claimSpendLedgerPlace, type SpendLedgerPlace } from './spend-ledger-replica-repository.ts';

/**
 * S-274 on the embedded database: one PGlite is one process, but it holds as many run-ownership leases as it is
 * given, each an advisory lock like a replica's on a server, so "live" means here what it means there.
 */
const DATABASE: SpendLedgerPlace = { kind: 'database' };
const REDIS: SpendLedgerPlace = { kind: 'redis', at: 'redis:6379/0', keyPrefix: 'sandscope:' };

let db: Database;
const leases: OwnerLease[] = [];

beforeAll(async () => {
  db = await openDatabase({ dataDir: 'memory://' });
  await migrate(db);
}, 60_000);

afterAll(async () => {
  for (const lease of leases) await lease.release();
  await db?.close();
});

async function replica(name: string): Promise<{ readonly lease: OwnerLease; claim(place: SpendLedgerPlace): ReturnType<typeof claimSpendLedgerPlace> }> {
  const lease = await claimOwnerLease(db, `${name}-${leases.length}`);
  leases.push(lease);
  return { lease, claim: (place) => claimSpendLedgerPlace(db, { ownerId: lease.ownerId, replica: name, place }) };
}

const recorded = async () =>
  (await db.query<{ replica: string; ledger: string }>('select replica, ledger from spend_ledger_replica order by replica')).map(
    (r) => `${r.replica}:${r.ledger}`,
  );

describe('claimSpendLedgerPlace (S-274): one ledger for the replicas on a database', () => {
  it('refuses a replica whose ledger differs from a live one, names that one, and records nothing for it', async () => {
    await db.exec('delete from spend_ledger_replica');
    const a = await replica('agent-a');
    const b = await replica('agent-b');
    expect(await a.claim(REDIS)).toEqual([]);
    expect(await b.claim(REDIS)).toEqual([]);
    const c = await replica('agent-c');
    expect(await c.claim(DATABASE)).toEqual([
      { ownerId: a.lease.ownerId, replica: 'agent-a', place: REDIS },
      { ownerId: b.lease.ownerId, replica: 'agent-b', place: REDIS },
    ]);
    // Another Redis server, database or key prefix is another ledger too.
    expect(await c.claim({ ...REDIS, at: 'redis:6379/1' })).toHaveLength(2);
    expect(await c.claim({ ...REDIS, keyPrefix: 'other:' })).toHaveLength(2);
    expect(await recorded()).toEqual(['agent-a:redis', 'agent-b:redis']);
    expect(await c.claim(REDIS)).toEqual([]);
    expect(await recorded()).toEqual(['agent-a:redis', 'agent-b:redis', 'agent-c:redis']);
  });

  it('counts a replica only while it holds its lease: once the old ones stop, the ledger can move', async () => {
    await db.exec('delete from spend_ledger_replica');
    const old = await replica('old');
    expect(await old.claim(DATABASE)).toEqual([]);
    const moved = await replica('moved');
    expect(await moved.claim(REDIS)).toHaveLength(1);
    await old.lease.release();
    expect(await moved.claim(REDIS)).toEqual([]);
    // The stopped replica's record is gone with it, not kept to be read again.
    expect(await recorded()).toEqual(['moved:redis']);
  });

  it('lets a replica claim again (a restart of the same owner) and change its own record', async () => {
    await db.exec('delete from spend_ledger_replica');
    const alone = await replica('alone');
    expect(await alone.claim(DATABASE)).toEqual([]);
    expect(await alone.claim(REDIS)).toEqual([]);
    expect(await recorded()).toEqual(['alone:redis']);
  });
});
