/**
 * One of the two processes in `spend-ceiling-two-processes.int.test.ts`: opens
 * the shared ledger as an agent replica would (its own connection), waits for
 * the parent's `go` (sent once both have said `ready`) so both processes contend at once, runs its share of
 * the reservations and prints what it was granted and settled as one JSON line.
 *
 * Environment: LEDGER (postgres | redis), LEDGER_URL, LEDGER_SCHEMA or
 * LEDGER_PREFIX, CEILING_USD, COUNT, MAX_USD, SEED.
 */
import { contendedReservations } from '@sandscope/engine/testing';
import type { SpendLedger } from '@sandscope/engine/models';
import { DatabaseSpendLedger, openDatabase } from '@sandscope/store';
import { RedisSpendLedger } from '../redis-spend-ledger.ts';

const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined) throw new Error(`${name} is not set`);
  return value;
};

const ceilingUsd = Number(env('CEILING_USD'));
let ledger: SpendLedger;
let close: () => Promise<void>;
if (env('LEDGER') === 'postgres') {
  const db = await openDatabase({ url: env('LEDGER_URL'), schema: env('LEDGER_SCHEMA') });
  ledger = new DatabaseSpendLedger(db, { ceilingUsd });
  close = () => db.close();
} else {
  const redis = new RedisSpendLedger({ url: env('LEDGER_URL'), keyPrefix: env('LEDGER_PREFIX'), ceilingUsd });
  await redis.ready();
  ledger = redis;
  close = () => redis.close();
}
// Connected: say so, and wait for the parent to release both workers together (it writes `go` once both are ready).
process.stdout.write('ready\n');
await new Promise((r) => process.stdin.once('data', r));
const result = await contendedReservations([ledger], Number(env('COUNT')), Number(env('MAX_USD')), Number(env('SEED')));
process.stdout.write(`${JSON.stringify({ pid: process.pid, ...result })}\n`);
await close();
