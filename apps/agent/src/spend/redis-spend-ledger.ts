import { randomUUID } from 'node:crypto';
import {
  assertLedgerAmount,
  assertLedgerCeiling,
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

/**
 * Charges a day's expired holds in full (their process died mid-call). A hold
 * is a member `<id>:<nano>` of the day's holds sorted set, scored by when it
 * expires; the day's hash keeps `spent` and `reserved` so a reservation reads
 * two numbers, not every open hold. Shared by the scripts below, so every read
 * of the totals is current.
 */
const SWEEP_LUA = `
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
`;

/**
 * Check and book in one script: Redis runs it alone, so replicas cannot both
 * book the last of the ceiling (a GET from Node and an INCRBY after it would race).
 * KEYS day hash, holds set · ARGV now, nano, ceilingNano, member, expiresAt, keyTtlMs
 */
const RESERVE_LUA = `${SWEEP_LUA}
sweep(KEYS[1], KEYS[2], tonumber(ARGV[1]))
local spent = tonumber(redis.call('HGET', KEYS[1], 'spent') or '0')
local reserved = tonumber(redis.call('HGET', KEYS[1], 'reserved') or '0')
local nano = tonumber(ARGV[2])
if spent + reserved + nano > tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[2], tonumber(ARGV[5]), ARGV[4])
redis.call('HINCRBY', KEYS[1], 'reserved', nano)
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[6]))
redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[6]))
return 1
`;

/**
 * Release the hold if it is still open and record the actual; if the sweep
 * charged it already, only a bill above it is new money.
 * KEYS day hash, holds set · ARGV now, member, nano, actualNano, keyTtlMs
 */
const SETTLE_LUA = `${SWEEP_LUA}
sweep(KEYS[1], KEYS[2], tonumber(ARGV[1]))
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

/** KEYS day hash, holds set · ARGV now → {spent, reserved} */
const USAGE_LUA = `${SWEEP_LUA}
sweep(KEYS[1], KEYS[2], tonumber(ARGV[1]))
return {redis.call('HGET', KEYS[1], 'spent') or '0', redis.call('HGET', KEYS[1], 'reserved') or '0'}
`;

/** A day's books outlive it by a day, so a late settlement and a skewed replica still find them. */
const KEY_TTL_MS = 2 * 24 * 60 * 60 * 1000;

interface LedgerScripts {
  sandscopeSpendReserve(day: string, holds: string, ...args: (string | number)[]): Promise<number>;
  sandscopeSpendSettle(day: string, holds: string, ...args: (string | number)[]): Promise<number>;
  sandscopeSpendUsage(day: string, holds: string, now: number): Promise<[string, string]>;
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
  readonly ceilingUsd: number;
  readonly description = 'Redis (shared by every replica)';
  readonly #redis: Redis;
  readonly #scripts: LedgerScripts;
  readonly #prefix: string;
  readonly #ceilingNano: number;
  readonly #ttlMs: number;
  readonly #now: () => number;

  constructor(options: RedisSpendLedgerOptions) {
    assertLedgerCeiling(options.ceilingUsd);
    this.ceilingUsd = options.ceilingUsd;
    this.#ceilingNano = nanoDown(options.ceilingUsd);
    this.#ttlMs = options.holdTtlMs ?? DEFAULT_HOLD_TTL_MS;
    this.#now = options.now ?? Date.now;
    this.#prefix = options.keyPrefix ?? 'sandscope:spend:';
    this.#redis = new Redis(options.url, {
      commandTimeout: options.commandTimeoutMs ?? 1_000,
      connectTimeout: 1_000,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      retryStrategy: (times) => Math.min(50 * 2 ** Math.min(times, 5), 1_000),
    });
    // Without a listener ioredis prints every reconnect failure as "Unhandled error event".
    this.#redis.on('error', options.onConnectionError ?? (() => {}));
    this.#redis.defineCommand('sandscopeSpendReserve', { lua: RESERVE_LUA, numberOfKeys: 2 });
    this.#redis.defineCommand('sandscopeSpendSettle', { lua: SETTLE_LUA, numberOfKeys: 2 });
    this.#redis.defineCommand('sandscopeSpendUsage', { lua: USAGE_LUA, numberOfKeys: 2 });
    this.#scripts = this.#redis as unknown as LedgerScripts;
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
    const booked = await this.#call(() =>
      this.#scripts.sandscopeSpendReserve(this.#dayKey(day), this.#holdsKey(day), now, nano, this.#ceilingNano, `${id}:${nano}`, now + this.#ttlMs, KEY_TTL_MS),
    );
    return Number(booked) === 1 ? { id, day, nano, usd: nano / NANO_PER_USD } : null;
  }

  async settle(hold: LedgerHold, actualUsd: number): Promise<void> {
    assertLedgerAmount('settle', actualUsd);
    await this.#call(() =>
      this.#scripts.sandscopeSpendSettle(
        this.#dayKey(hold.day),
        this.#holdsKey(hold.day),
        this.#now(),
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
    const [spent, reserved] = await this.#call(() => this.#scripts.sandscopeSpendUsage(this.#dayKey(day), this.#holdsKey(day), now));
    return { day, spentUsd: Number(spent) / NANO_PER_USD, reservedUsd: Number(reserved) / NANO_PER_USD, ceilingUsd: this.ceilingUsd };
  }

  async close(): Promise<void> {
    // disconnect(), not quit(): quit waits on a server that may be the reason we are closing.
    this.#redis.disconnect();
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
      throw new SpendLedgerUnavailableError(`Redis: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }
}
