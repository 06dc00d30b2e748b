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
  SpendLedgerUnavailableError,
  type SpendLedgerUsage,
  utcDayOf,
} from '@sandscope/engine/models';
import { Redis } from 'ioredis';
import { passwordRefusalOf } from '../limits/redis-password.ts';

/**
 * Charges a day's expired holds in full (their process died mid-call). A hold
 * is a member `<id>:<nano>` of the day's holds sorted set, scored by when it
 * expires; the day's hash keeps `spent` and `reserved` so a reservation reads
 * two numbers, not every open hold. Shared by the scripts below, so every read
 * of the totals is current.
 *
 * Defect 9: when a hold expires is the server's clock (TIME), one clock for
 * every replica — by its own, a replica running ahead charged others' live
 * holds in full and one running behind booked holds already expired. `clock`
 * takes the caller's ms only when the ledger was given a clock (tests); an
 * empty argument means the server's.
 */
const SWEEP_LUA = `
local function clock(given)
  if given ~= '' then return tonumber(given) end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function sweep(day, holds, now)
  local expired = redis.call('ZRANGEBYSCORE', holds, '-inf', now)
  if #expired == 0 then return end
  local n = 0
  for _, member in ipairs(expired) do
    n = n + tonumber(string.match(member, ':(%d+)$'))
  end
  redis.call('ZREMRANGEBYSCORE', holds, '-inf', now)
  redis.call('HINCRBY', day, 'reserved', -n)
  redis.call('HINCRBY', day, 'spent', n)
end
-- S-144: the day keeps the lowest ceiling any replica has declared when it booked or read it; all book against it.
local function lowest(day, mine, keyTtl)
  local held = tonumber(redis.call('HGET', day, 'ceiling'))
  if held and held <= mine then return held end
  redis.call('HSET', day, 'ceiling', mine)
  redis.call('PEXPIRE', day, keyTtl)
  return mine
end
`;

/**
 * Check and book in one script: Redis runs it alone, so replicas cannot both
 * book the last of the ceiling (a GET from Node and an INCRBY after it would race).
 * KEYS day hash, holds set · ARGV now (see clock), nano, ceilingNano, member, holdTtlMs, keyTtlMs
 */
const RESERVE_LUA = `${SWEEP_LUA}
local now = clock(ARGV[1])
sweep(KEYS[1], KEYS[2], now)
local ceiling = lowest(KEYS[1], tonumber(ARGV[3]), tonumber(ARGV[6]))
local spent = tonumber(redis.call('HGET', KEYS[1], 'spent') or '0')
local reserved = tonumber(redis.call('HGET', KEYS[1], 'reserved') or '0')
local nano = tonumber(ARGV[2])
if spent + reserved + nano > ceiling then return 0 end
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[5]), ARGV[4])
redis.call('HINCRBY', KEYS[1], 'reserved', nano)
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[6]))
redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[6]))
return 1
`;

/**
 * Release the hold if it is still open and record the actual; if the sweep
 * charged it already, only a bill above it is new money.
 * KEYS day hash, holds set · ARGV now (see clock), member, nano, actualNano, keyTtlMs
 */
const SETTLE_LUA = `${SWEEP_LUA}
sweep(KEYS[1], KEYS[2], clock(ARGV[1]))
local nano = tonumber(ARGV[3])
local actual = tonumber(ARGV[4])
if redis.call('ZREM', KEYS[2], ARGV[2]) == 1 then
  redis.call('HINCRBY', KEYS[1], 'reserved', -nano)
  redis.call('HINCRBY', KEYS[1], 'spent', actual)
elseif actual > nano then
  redis.call('HINCRBY', KEYS[1], 'spent', actual - nano)
end
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[5]))
return 1
`;

/** KEYS day hash, holds set · ARGV now (see clock), ceilingNano, keyTtlMs → {spent, reserved, ceiling} */
const USAGE_LUA = `${SWEEP_LUA}
sweep(KEYS[1], KEYS[2], clock(ARGV[1]))
local ceiling = lowest(KEYS[1], tonumber(ARGV[2]), tonumber(ARGV[3]))
return {redis.call('HGET', KEYS[1], 'spent') or '0', redis.call('HGET', KEYS[1], 'reserved') or '0', tostring(ceiling)}
`;

/** A day's books outlive it by a day, so a late settlement and a skewed replica still find them. */
const KEY_TTL_MS = 2 * 24 * 60 * 60 * 1000;

interface LedgerScripts {
  sandscopeSpendReserve(day: string, holds: string, ...args: (string | number)[]): Promise<number>;
  sandscopeSpendSettle(day: string, holds: string, ...args: (string | number)[]): Promise<number>;
  sandscopeSpendUsage(day: string, holds: string, now: number | '', ceilingNano: number, keyTtlMs: number): Promise<[string, string, string]>;
}

export interface RedisSpendLedgerOptions extends SpendLedgerOptions {
  /** `redis://` or `rediss://` URL (REDIS_URL). */
  readonly url: string;
  /** Prefix for every key (default `sandscope:spend:`): replicas of one deployment share it. */
  readonly keyPrefix?: string;
  /** A command not answered within this many ms fails (default 1000): the call is then not made. */
  readonly commandTimeoutMs?: number;
  /** Told about connection errors (already handled: reservations fail closed). Default: ignore. */
  readonly onConnectionError?: (error: Error) => void;
}

/**
 * The daily spend ceiling on Redis, shared by every replica on one server and
 * prefix (issue 11 section 2). Like the limiter's client it fails fast rather
 * than queue: while Redis is down every reservation throws
 * SpendLedgerUnavailableError and no model call is made (fail closed).
 */
export class RedisSpendLedger implements SpendLedger {
  readonly declaredCeilingUsd: number;
  readonly description = 'Redis (shared by every replica)';
  readonly #inForce: CeilingInForce;
  readonly #redis: Redis;
  readonly #scripts: LedgerScripts;
  readonly #prefix: string;
  readonly #ceilingNano: number;
  readonly #ttlMs: number;
  readonly #now: () => number;
  /** A clock was injected (tests): it times holds too, in place of the server's. */
  readonly #clockGiven: boolean;
  /** S-275: the handshake's refusal of REDIS_URL's password, until a connection is ready: why every command fails. */
  #refused: Error | undefined;

  constructor(options: RedisSpendLedgerOptions) {
    assertLedgerCeiling(options.ceilingUsd);
    this.declaredCeilingUsd = options.ceilingUsd;
    this.#ceilingNano = nanoDown(options.ceilingUsd);
    this.#ttlMs = options.holdTtlMs ?? DEFAULT_HOLD_TTL_MS;
    this.#now = options.now ?? Date.now;
    this.#inForce = new CeilingInForce(options.ceilingUsd, this.#now);
    this.#clockGiven = options.now !== undefined;
    this.#prefix = options.keyPrefix ?? 'sandscope:spend:';
    this.#redis = new Redis(options.url, {
      commandTimeout: options.commandTimeoutMs ?? 1_000,
      connectTimeout: 1_000,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      retryStrategy: (times) => Math.min(50 * 2 ** Math.min(times, 5), 1_000),
    });
    // Without a listener ioredis prints every reconnect failure as "Unhandled error event".
    const onConnectionError = options.onConnectionError ?? (() => {});
    this.#redis.on('error', (error: Error) => {
      this.#refused = passwordRefusalOf(error) ? error : undefined;
      onConnectionError(error);
    });
    this.#redis.on('ready', () => {
      this.#refused = undefined;
    });
    this.#redis.defineCommand('sandscopeSpendReserve', { lua: RESERVE_LUA, numberOfKeys: 2 });
    this.#redis.defineCommand('sandscopeSpendSettle', { lua: SETTLE_LUA, numberOfKeys: 2 });
    this.#redis.defineCommand('sandscopeSpendUsage', { lua: USAGE_LUA, numberOfKeys: 2 });
    this.#scripts = this.#redis as unknown as LedgerScripts;
  }

  /** Today's ceiling as `usage()` last read it: this replica's own, or another's lower one (S-144, S-259). */
  get ceilingUsd(): number {
    return this.#inForce.usd;
  }

  /** Resolves once connected, or rejects after `timeoutMs`; until then reservations fail closed. */
  async ready(timeoutMs = 2_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.#redis.status !== 'ready') {
      if (this.#redis.status === 'end') throw new SpendLedgerUnavailableError('its Redis connection is closed');
      if (Date.now() >= deadline) throw new SpendLedgerUnavailableError(`Redis did not become ready within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async reserve(usd: number): Promise<LedgerHold | null> {
    assertLedgerAmount('reserve', usd);
    const now = this.#now();
    const day = utcDayOf(now);
    const nano = nanoUp(usd);
    const id = randomUUID();
    const member = `${id}:${nano}`;
    let booked: number;
    try {
      booked = await this.#call(() =>
        this.#scripts.sandscopeSpendReserve(this.#dayKey(day), this.#holdsKey(day), this.#at(now), nano, this.#ceilingNano, member, this.#ttlMs, KEY_TTL_MS),
      );
    } catch (error) {
      this.#releaseUnanswered(day, member, nano);
      throw error;
    }
    return Number(booked) === 1 ? { id, day, nano, usd: nano / NANO_PER_USD } : null;
  }

  /**
   * Defect 4: a reserve that timed out may still run on the server, booking a
   * hold nobody will settle — charged in full when it expires, so a slow Redis
   * could use up the day's ceiling on calls never made. Settling that id for 0
   * undoes it; Redis runs it after the reserve on the same connection, and it
   * is a no-op if the reserve never ran. Best effort and not awaited: the
   * caller's error (fail closed) is unchanged, and a hold this misses still expires.
   */
  #releaseUnanswered(day: string, member: string, nano: number): void {
    this.#scripts.sandscopeSpendSettle(this.#dayKey(day), this.#holdsKey(day), this.#at(this.#now()), member, nano, 0, KEY_TTL_MS).catch(() => {});
  }

  async settle(hold: LedgerHold, actualUsd: number): Promise<void> {
    assertLedgerAmount('settle', actualUsd);
    await this.#call(() =>
      this.#scripts.sandscopeSpendSettle(
        this.#dayKey(hold.day),
        this.#holdsKey(hold.day),
        this.#at(this.#now()),
        `${hold.id}:${hold.nano}`,
        hold.nano,
        nanoUp(actualUsd),
        KEY_TTL_MS,
      ),
    );
  }

  async usage(): Promise<SpendLedgerUsage> {
    const now = this.#now();
    const day = utcDayOf(now);
    const [spent, reserved, ceiling] = await this.#call(() =>
      this.#scripts.sandscopeSpendUsage(this.#dayKey(day), this.#holdsKey(day), this.#at(now), this.#ceilingNano, KEY_TTL_MS),
    );
    const ceilingNano = Number(ceiling);
    const ceilingUsd = ceilingNano >= this.#ceilingNano ? this.declaredCeilingUsd : ceilingNano / NANO_PER_USD;
    this.#inForce.saw(day, ceilingUsd);
    return { day, spentUsd: Number(spent) / NANO_PER_USD, reservedUsd: Number(reserved) / NANO_PER_USD, ceilingUsd };
  }

  async close(): Promise<void> {
    // disconnect(), not quit(): quit waits on a server that may be the reason we are closing.
    this.#redis.disconnect();
  }

  /**
   * The time the scripts time holds by: '' for the server's (defect 9), or the
   * injected clock's. The day key stays this replica's clock: it names the keys,
   * which a script must be given, not compute (Redis Cluster); skew moves at
   * most a few moments' spend across midnight.
   */
  #at(now: number): number | '' {
    return this.#clockGiven ? now : '';
  }

  /** The hash tag keeps a day's two keys in one Redis Cluster slot, as a script requires. */
  #dayKey(day: string): string {
    return `${this.#prefix}{${day}}:day`;
  }

  #holdsKey(day: string): string {
    return `${this.#prefix}{${day}}:holds`;
  }

  async #call<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      // S-275: a command fails "Stream isn't writeable" while the password is refused; the refusal is the reason.
      const reason = this.#refused ?? error;
      throw new SpendLedgerUnavailableError(`Redis: ${reason instanceof Error ? reason.message : String(reason)}`, { cause: reason });
    }
  }
}
