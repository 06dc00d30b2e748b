import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import {
  type Admission,
  type LimiterPolicy,
  type RateLimiter,
  LimiterUnavailableError,
  assertLimiterArgs,
  assertLimiterPolicy,
  msUntilUtcMidnight,
  utcDay,
} from './limiter.ts';

/**
 * Sliding-window admission, atomic on the server so replicas sharing one Redis
 * cannot both admit the N-th request (a read-then-write from Node would race).
 *
 * KEYS[1] window sorted set (score = admitted-at ms, member = random id)
 * KEYS[2] today's token counter
 * ARGV    now, windowMs, maxRequests, dailyTokenCeiling, member, msUntilUtcMidnight
 * Returns {1, remaining, 0} | {0, reasonCode, retryAfterMs} with reasonCode
 * 1 = rate_limited, 2 = daily_tokens_exhausted.
 *
 * A refused request is not added, so retryAfterMs stays truthful. The set's expiry
 * is relative to the caller's `now` (PEXPIRE, not PEXPIREAT) so it is correct for
 * injected clocks too.
 */
const ADMIT_LUA = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local max = tonumber(ARGV[3])
local ceiling = tonumber(ARGV[4])
local used = tonumber(redis.call('GET', KEYS[2]) or '0')
if used >= ceiling then
  return {0, 2, tonumber(ARGV[6])}
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local count = redis.call('ZCARD', KEYS[1])
if count >= max then
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  local retry = tonumber(oldest[2]) + window - now
  if retry < 1 then retry = 1 end
  return {0, 1, retry}
end
redis.call('ZADD', KEYS[1], now, ARGV[5])
redis.call('PEXPIRE', KEYS[1], window)
return {1, max - count - 1, 0}
`;

/**
 * Daily token charge: always recorded (see `RateLimiter.chargeTokens`), expiring a
 * little after the UTC day ends.
 *
 * KEYS[1] today's token counter
 * ARGV    tokens, dailyTokenCeiling, ttlMs
 * Returns today's total after the charge.
 */
const CHARGE_LUA = `
local used = redis.call('INCRBY', KEYS[1], tonumber(ARGV[1]))
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]))
return used
`;

/** Keep a finished day's counter this long past midnight, so replicas with skewed clocks agree. */
const DAY_KEY_GRACE_MS = 3_600_000;

interface LimiterScripts {
  sandscopeLimiterAdmit(
    windowKey: string,
    tokenKey: string,
    ...args: (string | number)[]
  ): Promise<[number, number, number]>;
  sandscopeLimiterCharge(tokenKey: string, ...args: (string | number)[]): Promise<number>;
}

export interface RedisLimiterOptions extends LimiterPolicy {
  /** `redis://` or `rediss://` URL (REDIS_URL). */
  readonly url: string;
  /**
   * Prefix for every key this limiter writes (default `sandscope:limit:`). Replicas
   * that must share counts use the same prefix; test runs on a shared server use a
   * unique one.
   */
  readonly keyPrefix?: string;
  /** A command not answered within this many ms fails as unavailable (default 500). */
  readonly commandTimeoutMs?: number;
  /** Connection attempt timeout in ms (default 1000). */
  readonly connectTimeoutMs?: number;
  /** Told about connection errors (already handled: they become refusals). Default: ignore. */
  readonly onConnectionError?: (error: Error) => void;
}

/**
 * Redis-backed limiter shared by every replica pointing at the same server and prefix.
 *
 * The client is configured to fail FAST rather than queue: with the offline queue
 * off and no per-request retries, a command issued while Redis is down rejects at
 * once, and `commandTimeout` bounds a server that accepts the connection but never
 * answers. Every such failure becomes `LimiterUnavailableError`; the middleware
 * turns that into a 503 — never an admission. Reconnection continues in the
 * background, so requests are admitted again as soon as Redis is back.
 */
export class RedisLimiter implements RateLimiter {
  readonly #policy: LimiterPolicy;
  readonly #prefix: string;
  readonly #redis: Redis;
  readonly #scripts: LimiterScripts;
  #closed = false;

  constructor(options: RedisLimiterOptions) {
    assertLimiterPolicy(options);
    this.#policy = {
      windowMs: options.windowMs,
      maxRequests: options.maxRequests,
      dailyTokenCeiling: options.dailyTokenCeiling,
    };
    this.#prefix = options.keyPrefix ?? 'sandscope:limit:';
    const onConnectionError = options.onConnectionError ?? (() => {});
    this.#redis = new Redis(options.url, {
      commandTimeout: options.commandTimeoutMs ?? 500,
      connectTimeout: options.connectTimeoutMs ?? 1_000,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      // Keep reconnecting for ever, backing off to 1 s: recovery must need no restart.
      retryStrategy: (times) => Math.min(50 * 2 ** Math.min(times, 5), 1_000),
    });
    // Without a listener ioredis prints every reconnect failure as "Unhandled error event".
    this.#redis.on('error', onConnectionError);
    this.#redis.defineCommand('sandscopeLimiterAdmit', { lua: ADMIT_LUA, numberOfKeys: 2 });
    this.#redis.defineCommand('sandscopeLimiterCharge', { lua: CHARGE_LUA, numberOfKeys: 1 });
    this.#scripts = this.#redis as unknown as LimiterScripts;
  }

  /**
   * Resolve once connected, or throw `LimiterUnavailableError` after `timeoutMs`.
   * Optional: without it, requests that arrive before the connection is up are
   * refused (503), which is the fail-closed answer anyway.
   */
  async ready(timeoutMs = 2_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.#redis.status !== 'ready') {
      if (this.#closed || this.#redis.status === 'end') {
        throw new LimiterUnavailableError('Rate limiter store connection is closed.');
      }
      if (Date.now() >= deadline) {
        throw new LimiterUnavailableError(
          `Rate limiter store did not become ready within ${timeoutMs} ms (status: ${this.#redis.status}).`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async admit(clientKey: string, now: number): Promise<Admission> {
    assertLimiterArgs(clientKey, now);
    const at = Math.floor(now);
    const { windowMs, maxRequests, dailyTokenCeiling } = this.#policy;
    const [allowed, second, retryAfterMs] = await this.#call(() =>
      this.#scripts.sandscopeLimiterAdmit(
        this.#windowKey(clientKey),
        this.#tokenKey(clientKey, at),
        at,
        windowMs,
        maxRequests,
        dailyTokenCeiling,
        randomUUID(),
        msUntilUtcMidnight(at),
      ),
    );
    if (allowed === 1) return { allowed: true, remaining: second };
    return {
      allowed: false,
      reason: second === 2 ? 'daily_tokens_exhausted' : 'rate_limited',
      retryAfterMs,
    };
  }

  async chargeTokens(clientKey: string, tokens: number, now: number): Promise<Admission> {
    assertLimiterArgs(clientKey, now, tokens);
    const at = Math.floor(now);
    const used = await this.#call(() =>
      this.#scripts.sandscopeLimiterCharge(
        this.#tokenKey(clientKey, at),
        tokens,
        this.#policy.dailyTokenCeiling,
        msUntilUtcMidnight(at) + DAY_KEY_GRACE_MS,
      ),
    );
    const left = this.#policy.dailyTokenCeiling - Number(used);
    return left > 0
      ? { allowed: true, remaining: left }
      : { allowed: false, reason: 'daily_tokens_exhausted', retryAfterMs: msUntilUtcMidnight(at) };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    // disconnect(), not quit(): quit waits on a server that may be the reason we are closing.
    this.#redis.disconnect();
  }

  /** The hash tag `{…}` keeps both of a client's keys in one Redis Cluster slot, as a Lua script requires. */
  #windowKey(clientKey: string): string {
    return `${this.#prefix}{${clientKey}}:window`;
  }

  #tokenKey(clientKey: string, now: number): string {
    return `${this.#prefix}{${clientKey}}:tokens:${utcDay(now)}`;
  }

  /** Every store failure — refused connection, timeout, closed stream, error reply — is one error type. */
  async #call<T>(run: () => Promise<T>): Promise<T> {
    if (this.#closed) {
      throw new LimiterUnavailableError('Rate limiter store connection is closed.');
    }
    try {
      return await run();
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      throw new LimiterUnavailableError(`Rate limiter store failed: ${detail}`, { cause: error });
    }
  }
}
