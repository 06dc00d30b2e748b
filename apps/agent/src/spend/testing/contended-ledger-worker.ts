/**
 * One of the two processes in `spend-ceiling-two-processes.int.test.ts`: opens
 * the shared ledger as an agent replica would (its own connection), waits for
 * the common start time so both processes contend at once, runs its share of
 * the reservations and prints what it was granted and settled as one JSON line.
 *
 * Environment: LEDGER (postgres | redis), LEDGER_URL, LEDGER_SCHEMA or
 * LEDGER_PREFIX, CEILING_USD, COUNT, MAX_USD, SEED, START_AT (epoch ms).
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
await new Promise((r) => setTimeout(r, Math.max(0, Number(env('START_AT')) - Date.now())));
const result = await contendedReservations([ledger], Number(env('COUNT')), Number(env('MAX_USD')), Number(env('SEED')));
process.stdout.write(`${JSON.stringify({ pid: process.pid, ...result })}\n`);
await close();
