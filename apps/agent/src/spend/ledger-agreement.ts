import { claimSpendLedgerPlace, type SpendLedgerPlace, type SpendLedgerReplica, samePlace, type Store } from '@sandscope/store';
import type { AgentConfig } from '../config.ts';
import { redisDatabaseOf } from '../limits/redis-database.ts';
import { UserError } from '../user-error.ts';

/**
 * Where these settings book the daily spend, as openSpendLedger chooses: with REDIS_URL, that Redis server's database
 * under REDIS_KEY_PREFIX (the password is no part of it); without, the database.
 */
export function spendLedgerPlaceOf(config: Pick<AgentConfig, 'redisUrl' | 'redisKeyPrefix'>): SpendLedgerPlace {
  if (!config.redisUrl) return { kind: 'database' };
  const url = new URL(config.redisUrl);
  return { kind: 'redis', at: `${url.hostname.toLowerCase()}:${url.port || '6379'}/${redisDatabaseOf(config.redisUrl)}`, keyPrefix: config.redisKeyPrefix };
}

/**
 * S-274 (the replicas audit): replicas on one database, some with REDIS_URL and some without, each booked the daily
 * spend in its own ledger, and the deployment spent $1.20 against a $1 DAILY_SPEND_CEILING_USD; the README only warned.
 * At start-up a replica records where it books (spend_ledger_replica, migration 0030) and, if a live replica books
 * somewhere else, stops with one line naming them and what to set. Live means holding its run-ownership lease: a
 * replica that stopped counts no more, so a ledger moved on purpose (stop the old replicas, start the new) starts.
 */
export async function agreeOnSpendLedger(
  store: Pick<Store, 'db' | 'ownerId'>,
  config: Pick<AgentConfig, 'redisUrl' | 'redisKeyPrefix' | 'telemetry'>,
): Promise<void> {
  const place = spendLedgerPlaceOf(config);
  const elsewhere = await claimSpendLedgerPlace(store.db, { ownerId: store.ownerId, replica: config.telemetry.replica, place });
  if (elsewhere.length > 0) throw new UserError(twoLedgers(place, elsewhere));
}

function placeWords(place: SpendLedgerPlace): string {
  return place.kind === 'database' ? 'the database (no REDIS_URL)' : `Redis at ${place.at} (REDIS_KEY_PREFIX "${place.keyPrefix}")`;
}

/** At most this many replicas are named per ledger; the rest are counted. */
const NAMED = 5;

function names(replicas: readonly string[]): string {
  const unique = [...new Set(replicas)];
  const named = unique.slice(0, NAMED).join(', ');
  return unique.length > NAMED ? `${named} and ${unique.length - NAMED} more` : named;
}

/** The refusal: where this replica would book, where the live ones do (grouped by ledger), and what to set. */
function twoLedgers(mine: SpendLedgerPlace, elsewhere: readonly SpendLedgerReplica[]): string {
  const groups: { place: SpendLedgerPlace; replicas: string[] }[] = [];
  for (const other of elsewhere) {
    const group = groups.find((g) => samePlace(g.place, other.place));
    if (group) group.replicas.push(other.replica);
    else groups.push({ place: other.place, replicas: [other.replica] });
  }
  const where = groups.map((g) => `${names(g.replicas)} in ${placeWords(g.place)}`).join('; ');
  const theirs = groups.length === 1 ? groups[0]!.place : undefined;
  const fix =
    theirs === undefined
      ? 'Give every replica the same REDIS_URL and REDIS_KEY_PREFIX (or none) and start them again'
      : theirs.kind === 'database'
        ? 'Unset REDIS_URL on this replica, as it is on them'
        : `Set REDIS_URL to that Redis server and database, and REDIS_KEY_PREFIX to "${theirs.keyPrefix}", as they have them`;
  return (
    `this replica would book the daily spend (DAILY_SPEND_CEILING_USD) in ${placeWords(mine)}, but running replicas on this database book it elsewhere: ${where}. ` +
    `Two ledgers would each allow the whole ceiling. ${fix}; or, to move the ledger on purpose, stop those replicas first (a stopped replica counts no more).`
  );
}
