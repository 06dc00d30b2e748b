import { randomUUID } from 'node:crypto';
import {
  assertLedgerAmount,
  assertLedgerCeiling,
  CeilingInForce,
  DEFAULT_HOLD_TTL_MS,
  type LedgerHold,
  NANO_PER_USD,
  nanoDown,
  nanoUp,
  type SpendLedger,
  type SpendLedgerOptions,
  type SpendLedgerUsage,
  utcDayOf,
} from '@sandscope/engine/models';
import type { Database } from './database.ts';

/**
 * The daily spend ceiling in the store's database (`spend_day`, `spend_hold`):
 * every replica on one Postgres server books against the same row (issue 11
 * section 2). On embedded PGlite it is one process's, kept across restarts.
 *
 * Each step is ONE statement, so it is atomic without a transaction and a
 * process killed between two steps leaves nothing half-booked:
 * - reserve is `UPDATE … WHERE spent + reserved + n ≤ ceiling` feeding the hold's
 *   INSERT. Under READ COMMITTED a writer that waited on the row re-evaluates the
 *   WHERE against the committed row, so concurrent reservations serialise on it
 *   and none reads a stale total (a SELECT-then-UPDATE would let two replicas
 *   both book the last dollar);
 * - settle deletes the hold and moves its amount in the same statement, so a hold
 *   is released once even when a sweep races it;
 * - the sweep charges expired holds in full the same way.
 */
export class DatabaseSpendLedger implements SpendLedger {
  readonly declaredCeilingUsd: number;
  readonly description: string;
  readonly #inForce: CeilingInForce;
  readonly #db: Database;
  readonly #ceilingNano: number;
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor(db: Database, options: SpendLedgerOptions) {
    assertLedgerCeiling(options.ceilingUsd);
    this.#db = db;
    this.declaredCeilingUsd = options.ceilingUsd;
    this.#ceilingNano = nanoDown(options.ceilingUsd);
    this.#ttlMs = options.holdTtlMs ?? DEFAULT_HOLD_TTL_MS;
    this.#now = options.now ?? Date.now;
    this.#inForce = new CeilingInForce(options.ceilingUsd, this.#now);
    this.description = db.dialect === 'postgres' ? 'database (shared by every replica on this server)' : 'database (embedded PGlite: this process only)';
  }

  /** Today's ceiling as `usage()` last read it: this replica's own, or another's lower one (S-144, S-259). */
  get ceilingUsd(): number {
    return this.#inForce.usd;
  }

  async reserve(usd: number): Promise<LedgerHold | null> {
    assertLedgerAmount('reserve', usd);
    const now = this.#now();
    const day = utcDayOf(now);
    await this.#open(day, now);
    const nano = nanoUp(usd);
    const id = randomUUID();
    const rows = await this.#db.query(
      `with booked as (
         update spend_day set reserved_nano = reserved_nano + $2::bigint
         where day = $1::date and spent_nano + reserved_nano + $2::bigint <= least($3::bigint, coalesce(ceiling_nano, $3::bigint))
         returning day)
       insert into spend_hold (id, day, nano, expires_ms) select $4::uuid, day, $2::bigint, $5::bigint from booked returning id`,
      [day, nano, this.#ceilingNano, id, now + this.#ttlMs],
    );
    return rows.length === 0 ? null : { id, day, nano, usd: nano / NANO_PER_USD };
  }

  async settle(hold: LedgerHold, actualUsd: number): Promise<void> {
    assertLedgerAmount('settle', actualUsd);
    const actual = nanoUp(actualUsd);
    const released = await this.#db.query(
      `with released as (delete from spend_hold where id = $1::uuid returning day, nano)
       update spend_day d set reserved_nano = d.reserved_nano - r.nano, spent_nano = d.spent_nano + $2::bigint
       from released r where d.day = r.day returning 1 as one`,
      [hold.id, actual],
    );
    if (released.length > 0) return;
    // Expired and charged in full already (or settled before): only a bill above the hold is new money.
    const excess = Math.max(0, actual - hold.nano);
    if (excess > 0) await this.#db.query('update spend_day set spent_nano = spent_nano + $2::bigint where day = $1::date', [hold.day, excess]);
  }

  async usage(): Promise<SpendLedgerUsage> {
    const now = this.#now();
    const day = utcDayOf(now);
    await this.#open(day, now);
    const [row] = await this.#db.query<{ spent: number; reserved: number; ceiling: number | null }>(
      'select spent_nano::float8 as spent, reserved_nano::float8 as reserved, ceiling_nano::float8 as ceiling from spend_day where day = $1::date',
      [day],
    );
    const ceilingNano = Math.min(this.#ceilingNano, row?.ceiling ?? this.#ceilingNano);
    const ceilingUsd = ceilingNano === this.#ceilingNano ? this.declaredCeilingUsd : ceilingNano / NANO_PER_USD;
    this.#inForce.saw(day, ceilingUsd);
    return { day, spentUsd: (row?.spent ?? 0) / NANO_PER_USD, reservedUsd: (row?.reserved ?? 0) / NANO_PER_USD, ceilingUsd };
  }

  /**
   * Makes the day's row exist holding the lowest ceiling declared for it (S-144: a replica set higher no longer
   * spends past a lower one's), then charges its expired holds in full.
   */
  async #open(day: string, now: number): Promise<void> {
    await this.#db.query(
      `insert into spend_day (day, ceiling_nano) values ($1::date, $2::bigint) on conflict (day) do update set ceiling_nano = excluded.ceiling_nano
       where spend_day.ceiling_nano is null or spend_day.ceiling_nano > excluded.ceiling_nano`,
      [day, this.#ceilingNano],
    );
    await this.#db.query(
      `with expired as (delete from spend_hold where day = $1::date and expires_ms <= $2::bigint returning nano),
            total as (select coalesce(sum(nano), 0)::bigint as n from expired)
       update spend_day set reserved_nano = reserved_nano - total.n, spent_nano = spent_nano + total.n
       from total where day = $1::date and total.n > 0`,
      [day, now],
    );
  }
}
