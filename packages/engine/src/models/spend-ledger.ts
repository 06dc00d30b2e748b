import { ENGINE_ERROR_REMEDIES } from '../errors.ts';

/**
 * The deployment's money for one UTC day, shared by every replica
 * (DAILY_SPEND_CEILING_USD, issue 11 section 2). Each run's `SpendGuard` bounds
 * one run in one process; this bounds the fleet. A run's guard living in its
 * process is right — a run is owned by one replica — but a ceiling on what the
 * deployment spends in a day is only a ceiling if every replica books against
 * the same numbers: two processes each holding "$4 of $5 left" in memory spend $8.
 *
 * The contract every implementation keeps (`spend-ledger.contract.ts`):
 * - `reserve` checks and books in one atomic step at the backing store (a
 *   conditional UPDATE, a Lua script, one synchronous block), so concurrent
 *   reservations from any number of processes never take
 *   `spent + reserved` past the ceiling;
 * - amounts are integer nano-dollars, reservations and spends rounded up and the
 *   ceiling down, so the bound is exact;
 * - every reservation is checked against the lowest ceiling any replica has
 *   declared for the day (when it booked or read it), which `usage` reports:
 *   replicas set to different ceilings spent up to the highest (S-144);
 * - a hold not settled within its time to live is charged in full: the process
 *   that made it died mid-call (kill -9), and the provider may have billed all of
 *   it. Fail safe: the money is assumed spent, never handed back unseen.
 */
export interface SpendLedger {
  /**
   * Dollars per UTC day, > 0: the ceiling today's calls book against, as this
   * ledger last read it (`usage()`) — its own DAILY_SPEND_CEILING_USD, or a lower
   * one another replica declared for the day (S-144). What a refusal quotes.
   * S-259: it was always this replica's own setting, so a replica set to $5 on a
   * day held to another's $2 refused a call saying "$3.23 of the deployment's $5
   * is left".
   */
  readonly ceilingUsd: number;
  /**
   * This replica's own DAILY_SPEND_CEILING_USD, where a ledger shared by replicas
   * can hold a lower one (`ceilingUsd`); absent, the two are the same.
   */
  readonly declaredCeilingUsd?: number;
  /** Where it lives, for start-up and health lines. */
  readonly description: string;
  /**
   * Books `usd` against today's ceiling, or returns null — booking nothing —
   * when it would pass it. Throws when the backing store cannot be reached:
   * the caller makes no model call (fail closed).
   */
  reserve(usd: number): Promise<LedgerHold | null>;
  /** Releases the hold and records what the call really cost. Settling a hold twice records nothing the second time. */
  settle(hold: LedgerHold, actualUsd: number): Promise<void>;
  /** Today's figures, after charging expired holds. */
  usage(): Promise<SpendLedgerUsage>;
}

/** Money set aside on the shared ledger for one call. Plain data: the day it was booked on travels with it. */
export interface LedgerHold {
  readonly id: string;
  /** UTC day (`YYYY-MM-DD`) the hold was booked against; it settles against the same day. */
  readonly day: string;
  readonly nano: number;
  readonly usd: number;
}

export interface SpendLedgerUsage {
  readonly day: string;
  readonly spentUsd: number;
  readonly reservedUsd: number;
  /** The ceiling today's reservations are checked against: the lowest any replica has declared for the day. */
  readonly ceilingUsd: number;
}

export interface SpendLedgerOptions {
  /** DAILY_SPEND_CEILING_USD. */
  readonly ceilingUsd: number;
  /**
   * How long a hold may stay open before it is charged in full (default 15
   * minutes): longer than any call the router lets run, so only a hold whose
   * process is gone expires.
   */
  readonly holdTtlMs?: number;
  /** Clock in ms; injected by tests. */
  readonly now?: () => number;
}

export const DEFAULT_HOLD_TTL_MS = 15 * 60 * 1000;

/** Integer nano-dollars, as the run's guard keeps them. */
export const NANO_PER_USD = 1_000_000_000;

/** Reservations and spends round up, the ceiling down: `spent + reserved ≤ ceiling` holds exactly. */
export const nanoUp = (usd: number): number => Math.ceil(usd * NANO_PER_USD);
export const nanoDown = (usd: number): number => Math.floor(usd * NANO_PER_USD);

export function utcDayOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * A shared ledger's `ceilingUsd` (S-259): the ceiling it last read in force for
 * today, else its own. A day's ceiling only ever falls (the lowest any replica
 * declares, S-144), so of two reads of one day the lower is the current one,
 * whichever answered last; a new day starts from this replica's own again.
 */
export class CeilingInForce {
  #seen: { readonly day: string; readonly usd: number } | undefined;

  constructor(
    /** This replica's DAILY_SPEND_CEILING_USD. */
    readonly declaredUsd: number,
    private readonly now: () => number,
  ) {}

  get usd(): number {
    const seen = this.#seen;
    return seen && seen.day === utcDayOf(this.now()) ? seen.usd : this.declaredUsd;
  }

  /** What a read of the ledger found in force on `day`. */
  saw(day: string, usd: number): void {
    const seen = this.#seen;
    this.#seen = { day, usd: seen?.day === day ? Math.min(seen.usd, usd) : usd };
  }
}

/** Checks the shared arguments once, so every implementation refuses the same nonsense the same way. */
export function assertLedgerCeiling(ceilingUsd: number): void {
  if (!Number.isFinite(ceilingUsd) || ceilingUsd <= 0) {
    throw new RangeError(`DAILY_SPEND_CEILING_USD must be a positive number of US dollars, got ${ceilingUsd}`);
  }
}

export function assertLedgerAmount(what: 'reserve' | 'settle', usd: number): void {
  if (!Number.isFinite(usd) || usd < 0) throw new RangeError(`${what}() needs a non-negative amount, got ${usd}`);
}

/**
 * The single-process ledger: the default when there is no Redis and the
 * database is this process's own (embedded PGlite has one writer anyway). Kept
 * to the same contract so a deployment that grows into replicas changes the
 * backing, not the behaviour.
 */
export class InProcessSpendLedger implements SpendLedger {
  readonly ceilingUsd: number;
  readonly description = 'in-process (this replica only)';
  readonly #ceilingNano: number;
  readonly #ttlMs: number;
  readonly #now: () => number;
  readonly #days = new Map<string, { spent: number; reserved: number; holds: Map<string, { nano: number; expiresAt: number }> }>();
  #nextId = 1;

  constructor(options: SpendLedgerOptions) {
    assertLedgerCeiling(options.ceilingUsd);
    this.ceilingUsd = options.ceilingUsd;
    this.#ceilingNano = nanoDown(options.ceilingUsd);
    this.#ttlMs = options.holdTtlMs ?? DEFAULT_HOLD_TTL_MS;
    this.#now = options.now ?? Date.now;
  }

  async reserve(usd: number): Promise<LedgerHold | null> {
    assertLedgerAmount('reserve', usd);
    const now = this.#now();
    const day = this.#sweep(utcDayOf(now), now);
    const nano = nanoUp(usd);
    if (day.state.spent + day.state.reserved + nano > this.#ceilingNano) return null;
    const id = `p${this.#nextId++}`;
    day.state.reserved += nano;
    day.state.holds.set(id, { nano, expiresAt: now + this.#ttlMs });
    return { id, day: day.name, nano, usd: nano / NANO_PER_USD };
  }

  async settle(hold: LedgerHold, actualUsd: number): Promise<void> {
    assertLedgerAmount('settle', actualUsd);
    const { state } = this.#sweep(hold.day, this.#now());
    const actual = nanoUp(actualUsd);
    if (state.holds.delete(hold.id)) {
      state.reserved -= hold.nano;
      state.spent += actual;
    } else {
      // Expired and charged in full already (or settled before): only a bill above the hold is new money.
      state.spent += Math.max(0, actual - hold.nano);
    }
  }

  async usage(): Promise<SpendLedgerUsage> {
    const now = this.#now();
    const { name, state } = this.#sweep(utcDayOf(now), now);
    return { day: name, spentUsd: state.spent / NANO_PER_USD, reservedUsd: state.reserved / NANO_PER_USD, ceilingUsd: this.ceilingUsd };
  }

  #sweep(name: string, now: number) {
    let state = this.#days.get(name);
    if (!state) {
      state = { spent: 0, reserved: 0, holds: new Map() };
      this.#days.set(name, state);
      // Yesterday's books are not needed to admit today's calls; keep two days for late settlements.
      for (const old of [...this.#days.keys()].sort().slice(0, -2)) this.#days.delete(old);
    }
    for (const [id, hold] of state.holds) {
      if (hold.expiresAt > now) continue;
      state.holds.delete(id);
      state.reserved -= hold.nano;
      state.spent += hold.nano;
    }
    return { name, state };
  }
}

/**
 * The shared ledger could not be reached (Redis or the database is down). No
 * model call is made: a call whose money cannot be booked is not sent (fail
 * closed), and the caller is told to retry rather than shown a stack trace.
 */
export class SpendLedgerUnavailableError extends Error {
  override readonly name = 'SpendLedgerUnavailableError';
  readonly code = 'spend_ledger_unavailable';
  readonly isRetryable = true;
  readonly remedy = ENGINE_ERROR_REMEDIES.spend_ledger_unavailable;
  constructor(detail: string, options?: { cause?: unknown }) {
    super(`The shared spend ledger cannot be reached (${detail}), so no model call was made.`, options);
  }
}
