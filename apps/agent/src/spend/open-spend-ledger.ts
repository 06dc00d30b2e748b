import type { SpendLedger } from '@sandscope/engine/models';
import { type Database, DatabaseSpendLedger } from '@sandscope/store';
import type { AgentConfig } from '../config.ts';
import { RedisSpendLedger } from './redis-spend-ledger.ts';

/** A ledger and how to let go of what it opened (a Redis connection; a database is its opener's to close). */
export interface OpenedSpendLedger {
  readonly ledger: SpendLedger;
  close(): Promise<void>;
}

/**
 * Where the deployment's daily spend is booked (issue 11 section 2): REDIS_URL →
 * Redis; else the database (a Postgres server every replica shares, or the
 * embedded PGlite). Never process memory: a second replica would spend the same
 * "remaining" money again. A Redis that is down when it is opened stops nothing;
 * priced model calls are not made until it is back (fail closed), free ones are
 * unaffected.
 *
 * One function for `serve` and the CLI (S-260): `ask` and `eval --adjudicator model`
 * built their models with no ledger at all, so their priced calls were booked
 * nowhere and a `serve` started afterwards on the same data still had the whole
 * day's ceiling. Both now book on the ledger this opens, under the same keys.
 */
export async function openSpendLedger(
  config: Pick<AgentConfig, 'redisUrl' | 'redisKeyPrefix' | 'dailySpendCeilingUsd'>,
  db: Database | undefined,
  log: (line: string) => void,
): Promise<OpenedSpendLedger> {
  const ceilingUsd = config.dailySpendCeilingUsd;
  if (config.redisUrl) {
    let reported = false;
    const redis = new RedisSpendLedger({
      url: config.redisUrl,
      keyPrefix: `${config.redisKeyPrefix}spend:`,
      ceilingUsd,
      onConnectionError: (error) => {
        if (reported) return;
        reported = true;
        log(`spend ledger: Redis connection failed (${error.message}); priced model calls are not made until it is reachable`);
      },
    });
    await redis.ready().catch((error: unknown) => log(`spend ledger: ${error instanceof Error ? error.message : String(error)}`));
    return { ledger: redis, close: () => redis.close() };
  }
  if (!db) throw new Error('openSpendLedger: without REDIS_URL the daily spend is booked in the database, and none was given');
  return { ledger: new DatabaseSpendLedger(db, { ceilingUsd }), close: async () => {} };
}
