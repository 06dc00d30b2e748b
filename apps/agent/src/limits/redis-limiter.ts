import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import {
  type Admission,
  type LimiterPolicy,
  type RateLimiter,
  type TokenReservation,
  DEFAULT_RESERVATION_TTL_MS,
  LimiterUnavailableError,
  RESERVED_RETRY_AFTER_MS,
} from './limiter.ts';
import { assertLimiterArgs, assertLimiterPolicy, assertReservation, endOfUtcDay, msUntilUtcMidnight, utcDay } from './limiter-checks.ts';
import { passwordRefusalOf } from './redis-password.ts';

/**
 * Releases reservations that expired unsettled (their process died, defect 1).
 * Shared by both scripts below, so every read of the held total is current.
 * A hold is a member `<id>:<tokens>` of the holds sorted set, scored by when it
 * expires; `held` is the running sum of their tokens, so admission reads one
 * number instead of walking every open reservation.
 */
const SWEEP_LUA = `
local function sweep(holds, held, now)
  local expired = redis.call('ZRANGEBYSCORE', holds, '-inf', now)
  if #expired == 0 then return end
  local freed = 0
  for _, member in ipairs(expired) do
    freed = freed + tonumber(string.match(member, ':(%d+)$'))
  end
  redis.call('ZREMRANGEBYSCORE', holds, '-inf', now)
  if redis.call('DECRBY', held, freed) <= 0 then redis.call('DEL', held) end
end
`;

/**
 * Sliding-window admission and the run's token reservation, atomic on the server
 * so replicas sharing one Redis cannot both admit the N-th request, nor both
 * reserve the last of the ceiling (a read-then-write from Node would race —
 * defect 1 is that race, with the check and the charge a whole run apart).
 *
 * KEYS[1] window sorted set (score = admitted-at ms, member = random id)
 * KEYS[2] today's settled token counter
 * KEYS[3] today's open reservations (sorted set, see SWEEP_LUA)
 * KEYS[4] today's reserved-token total
 * ARGV    now, windowMs, maxRequests, dailyTokenCeiling, member, msUntilUtcMidnight,
 *         reserveTokens, holdMember, holdExpiresAt, dayKeyTtlMs, reservedRetryAfterMs
 * Returns {1, remaining, 0} | {0, reasonCode, retryAfterMs} with reasonCode
 * 1 = rate_limited, 2 = daily_tokens_exhausted.
 *
 * A refused request is not added and reserves nothing, so retryAfterMs stays
 * truthful. The window's expiry is relative to the caller's `now` (PEXPIRE, not
 * PEXPIREAT) so it is correct for injected clocks too.
 */
const ADMIT_LUA = `${SWEEP_LUA}
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local max = tonumber(ARGV[3])
local ceiling = tonumber(ARGV[4])
local reserve = tonumber(ARGV[7])
sweep(KEYS[3], KEYS[4], now)
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
if reserve > 0 and used + tonumber(redis.call('GET', KEYS[4]) or '0') >= ceiling then
  return {0, 1, tonumber(ARGV[11])}
end
redis.call('ZADD', KEYS[1], now, ARGV[5])
redis.call('PEXPIRE', KEYS[1], window)
if reserve > 0 then
  redis.call('ZADD', KEYS[3], tonumber(ARGV[9]), ARGV[8])
  redis.call('INCRBY', KEYS[4], reserve)
  redis.call('PEXPIRE', KEYS[3], tonumber(ARGV[10]))
  redis.call('PEXPIRE', KEYS[4], tonumber(ARGV[10]))
end
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

/**
 * Settle a reservation (defect 1): release it if it is still open — an expired
 * one was released by the sweep already, so it is never released twice — and
 * record the actual, always.
 *
 * KEYS[1] the reservation day's settled token counter
 * KEYS[2] that day's open reservations
 * KEYS[3] that day's reserved-token total
 * ARGV    holdMember, reservedTokens, actualTokens, dayKeyTtlMs, now
 * Returns that day's settled total after the charge.
 */
const SETTLE_LUA = `${SWEEP_LUA}
sweep(KEYS[2], KEYS[3], tonumber(ARGV[5]))
if redis.call('ZREM', KEYS[2], ARGV[1]) == 1 then
  if redis.call('DECRBY', KEYS[3], tonumber(ARGV[2])) <= 0 then redis.call('DEL', KEYS[3]) end
end
local used = redis.call('INCRBY', KEYS[1], tonumber(ARGV[3]))
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[4]))
return used
`;

/**
 * Undo an admission the caller never heard back from (defect 4): a check that
 * timed out may still run on the server, keeping a window slot and a token hold
 * for a request that was refused with 503. Removes both if they are there, so it
 * is a no-op when the check never ran.
 *
 * KEYS[1] window sorted set, KEYS[2] that day's open reservations, KEYS[3] that day's reserved-token total
 * ARGV    windowMember, holdMember, reservedTokens
 */
const RELEASE_LUA = `
redis.call('ZREM', KEYS[1], ARGV[1])
if redis.call('ZREM', KEYS[2], ARGV[2]) == 1 then
  if redis.call('DECRBY', KEYS[3], tonumber(ARGV[3])) <= 0 then redis.call('DEL', KEYS[3]) end
end
return 1
`;

/** Keep a finished day's counter this long past midnight, so replicas with skewed clocks agree. */
const DAY_KEY_GRACE_MS = 3_600_000;

interface LimiterScripts {
  sandscopeLimiterAdmit(
    windowKey: string,
    tokenKey: string,
    holdsKey: string,
    heldKey: string,
    ...args: (string | number)[]
  ): Promise<[number, number, number]>;
  sandscopeLimiterCharge(tokenKey: string, ...args: (string | number)[]): Promise<number>;
  sandscopeLimiterSettle(tokenKey: string, holdsKey: string, heldKey: string, ...args: (string | number)[]): Promise<number>;
  sandscopeLimiterRelease(windowKey: string, holdsKey: string, heldKey: string, ...args: (string | number)[]): Promise<number>;
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
  readonly #policy: Required<LimiterPolicy>;
  readonly #prefix: string;
  readonly #redis: Redis;
  readonly #scripts: LimiterScripts;
  readonly #timeoutMs: number;
  #closed = false;
  /** S-275: the handshake's refusal of REDIS_URL's password, until a connection is ready: why every command fails. */
  #refused: Error | undefined;

  constructor(options: RedisLimiterOptions) {
    assertLimiterPolicy(options);
    this.#policy = {
      windowMs: options.windowMs,
      maxRequests: options.maxRequests,
      dailyTokenCeiling: options.dailyTokenCeiling,
      reservationTtlMs: options.reservationTtlMs ?? DEFAULT_RESERVATION_TTL_MS,
    };
    this.#prefix = options.keyPrefix ?? 'sandscope:limit:';
    this.#timeoutMs = options.commandTimeoutMs ?? 500;
    const onConnectionError = options.onConnectionError ?? (() => {});
    this.#redis = new Redis(options.url, {
      commandTimeout: this.#timeoutMs,
      connectTimeout: options.connectTimeoutMs ?? 1_000,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      // Keep reconnecting for ever, backing off to 1 s: recovery must need no restart.
      retryStrategy: (times) => Math.min(50 * 2 ** Math.min(times, 5), 1_000),
    });
    // Without a listener ioredis prints every reconnect failure as "Unhandled error event".
    this.#redis.on('error', (error: Error) => {
      this.#refused = passwordRefusalOf(error) ? error : undefined;
      onConnectionError(error);
    });
    this.#redis.on('ready', () => {
      this.#refused = undefined;
    });
    this.#redis.defineCommand('sandscopeLimiterAdmit', { lua: ADMIT_LUA, numberOfKeys: 4 });
    this.#redis.defineCommand('sandscopeLimiterCharge', { lua: CHARGE_LUA, numberOfKeys: 1 });
    this.#redis.defineCommand('sandscopeLimiterSettle', { lua: SETTLE_LUA, numberOfKeys: 3 });
    this.#redis.defineCommand('sandscopeLimiterRelease', { lua: RELEASE_LUA, numberOfKeys: 3 });
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
        throw new LimiterUnavailableError(`Rate limiter store did not become ready within ${timeoutMs} ms (status: ${this.#redis.status}).`);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  async admit(clientKey: string, now: number, reserveTokens = 0): Promise<Admission> {
    assertLimiterArgs(clientKey, now, reserveTokens);
    const at = Math.floor(now);
    const day = utcDay(at);
    const { windowMs, maxRequests, dailyTokenCeiling, reservationTtlMs } = this.#policy;
    const id = randomUUID();
    const slot = randomUUID();
    const hold = holdMember(id, reserveTokens);
    let answer: [number, number, number];
    try {
      answer = await this.#call(() =>
        this.#scripts.sandscopeLimiterAdmit(
          this.#windowKey(clientKey),
          this.#tokenKey(clientKey, day),
          this.#holdsKey(clientKey, day),
          this.#heldKey(clientKey, day),
          at,
          windowMs,
          maxRequests,
          dailyTokenCeiling,
          slot,
          msUntilUtcMidnight(at),
          reserveTokens,
          hold,
          at + reservationTtlMs,
          dayKeyTtlMs(day, at),
          RESERVED_RETRY_AFTER_MS,
        ),
      );
    } catch (error) {
      // Defect 4: the caller refuses this request (503); if the check still runs late, it must not keep its slot or hold.
      // Sent after it on the same connection, so Redis runs it after; best effort, not awaited — the error stands.
      if (!this.#closed) {
        this.#scripts
          .sandscopeLimiterRelease(this.#windowKey(clientKey), this.#holdsKey(clientKey, day), this.#heldKey(clientKey, day), slot, hold, reserveTokens)
          .catch(() => {});
      }
      throw error;
    }
    // A reply the limiter cannot read is the store failing, not a bug: refused 503 like an outage (fail closed). A
    // connection whose replies fell out of step gave `answer is not iterable`, a 500 (a colleague's test).
    if (!Array.isArray(answer) || answer.length < 3 || !answer.every((n) => Number.isFinite(Number(n)))) {
      throw new LimiterUnavailableError(`Rate limiter store gave a reply the limiter cannot read (${JSON.stringify(answer)?.slice(0, 80)}).`);
    }
    const [allowed, second, retryAfterMs] = answer.map(Number) as [number, number, number];
    if (allowed === 1) {
      return reserveTokens > 0
        ? { allowed: true, remaining: second, reservation: { clientKey, id, tokens: reserveTokens, day } }
        : { allowed: true, remaining: second };
    }
    return {
      allowed: false,
      reason: second === 2 ? 'daily_tokens_exhausted' : 'rate_limited',
      retryAfterMs,
    };
  }

  async chargeTokens(clientKey: string, tokens: number, now: number): Promise<Admission> {
    assertLimiterArgs(clientKey, now, tokens);
    const at = Math.floor(now);
    const day = utcDay(at);
    const used = await this.#call(() =>
      this.#scripts.sandscopeLimiterCharge(this.#tokenKey(clientKey, day), tokens, this.#policy.dailyTokenCeiling, dayKeyTtlMs(day, at)),
    );
    return this.#left(Number(used), at);
  }

  async settleTokens(reservation: TokenReservation, actualTokens: number, now: number): Promise<Admission> {
    assertReservation(reservation);
    assertLimiterArgs(reservation.clientKey, now, actualTokens);
    const at = Math.floor(now);
    const { clientKey, day } = reservation;
    const used = await this.#call(() =>
      this.#scripts.sandscopeLimiterSettle(
        this.#tokenKey(clientKey, day),
        this.#holdsKey(clientKey, day),
        this.#heldKey(clientKey, day),
        holdMember(reservation.id, reservation.tokens),
        reservation.tokens,
        actualTokens,
        dayKeyTtlMs(day, at),
        at,
      ),
    );
    return this.#left(Number(used), at);
  }

  #left(used: number, at: number): Admission {
    const left = this.#policy.dailyTokenCeiling - used;
    return left > 0 ? { allowed: true, remaining: left } : { allowed: false, reason: 'daily_tokens_exhausted', retryAfterMs: msUntilUtcMidnight(at) };
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

  #tokenKey(clientKey: string, day: string): string {
    return `${this.#prefix}{${clientKey}}:tokens:${day}`;
  }

  #holdsKey(clientKey: string, day: string): string {
    return `${this.#prefix}{${clientKey}}:holds:${day}`;
  }

  #heldKey(clientKey: string, day: string): string {
    return `${this.#prefix}{${clientKey}}:held:${day}`;
  }

  /** Every store failure — refused connection, timeout, closed stream, error reply — is one error type. */
  async #call<T>(run: () => Promise<T>): Promise<T> {
    if (this.#closed) {
      throw new LimiterUnavailableError('Rate limiter store connection is closed.');
    }
    try {
      return await run();
    } catch (error) {
      // S-275: a command fails "Stream isn't writeable" while the password is refused; the refusal is the reason.
      const reason = this.#refused ?? error;
      const detail = reason instanceof Error ? reason.message : String(reason);
      // Said apart: an operator looks for an outage when the store is down, for load when it was only slow.
      const slow = /timed? ?out/i.test(detail) ? ` (it did not answer within ${this.#timeoutMs} ms: Redis, or this machine, under load?)` : '';
      throw new LimiterUnavailableError(`Rate limiter store failed: ${detail}${slow}`, { cause: reason });
    }
  }
}

/** A reservation's member in the holds set: its id, and its tokens for the sweep to release. */
function holdMember(id: string, tokens: number): string {
  return `${id}:${tokens}`;
}

/** A day's keys live until a little after that day ends (at least a second, for a settle long after it). */
function dayKeyTtlMs(day: string, now: number): number {
  return Math.max(1_000, endOfUtcDay(day) - now + DAY_KEY_GRACE_MS);
}
