import {
  type Admission,
  type LimiterPolicy,
  type RateLimiter,
  assertLimiterArgs,
  assertLimiterPolicy,
  msUntilUtcMidnight,
  utcDay,
} from './limiter.ts';

export interface InProcessLimiterOptions extends LimiterPolicy {
  /**
   * Most clients tracked at once (default 10 000). Beyond it the least recently
   * seen client is forgotten, so a flood of distinct addresses cannot grow memory
   * without bound. Forgetting resets that client's counts — acceptable for the
   * single-process default; use the Redis limiter where exactness across replicas
   * matters.
   */
  readonly maxClients?: number;
}

interface ClientState {
  /** Timestamps of admitted requests, ascending; only those still inside the window. */
  hits: number[];
  /** UTC day the token count belongs to. */
  day: string;
  tokens: number;
}

/**
 * The default limiter: one process, no server needed (a fresh laptop has no Redis).
 * Not shared between replicas — each process counts on its own, which is why
 * `REDIS_URL` exists.
 *
 * Never throws `LimiterUnavailableError`: its store is its own memory.
 */
export class InProcessLimiter implements RateLimiter {
  readonly #policy: LimiterPolicy;
  readonly #maxClients: number;
  /** Map iteration order is insertion order; re-inserting on access makes it an LRU. */
  readonly #clients = new Map<string, ClientState>();

  constructor(options: InProcessLimiterOptions) {
    assertLimiterPolicy(options);
    const maxClients = options.maxClients ?? 10_000;
    if (!Number.isSafeInteger(maxClients) || maxClients < 1) {
      throw new RangeError(`maxClients must be a positive integer (got ${String(maxClients)})`);
    }
    this.#policy = {
      windowMs: options.windowMs,
      maxRequests: options.maxRequests,
      dailyTokenCeiling: options.dailyTokenCeiling,
    };
    this.#maxClients = maxClients;
  }

  /** How many clients are currently tracked (for the bounded-memory test). */
  get trackedClients(): number {
    return this.#clients.size;
  }

  async admit(clientKey: string, now: number): Promise<Admission> {
    assertLimiterArgs(clientKey, now);
    const at = Math.floor(now);
    const state = this.#touch(clientKey, at);
    const { windowMs, maxRequests, dailyTokenCeiling } = this.#policy;

    if (state.tokens >= dailyTokenCeiling) {
      return { allowed: false, reason: 'daily_tokens_exhausted', retryAfterMs: msUntilUtcMidnight(at) };
    }
    // An entry at time t is inside the window while at - t < windowMs.
    const firstLive = state.hits.findIndex((t) => at - t < windowMs);
    state.hits = firstLive === -1 ? [] : state.hits.slice(firstLive);
    const oldest = state.hits[0];
    if (oldest !== undefined && state.hits.length >= maxRequests) {
      return { allowed: false, reason: 'rate_limited', retryAfterMs: Math.max(1, oldest + windowMs - at) };
    }
    state.hits.push(at);
    return { allowed: true, remaining: maxRequests - state.hits.length };
  }

  async chargeTokens(clientKey: string, tokens: number, now: number): Promise<Admission> {
    assertLimiterArgs(clientKey, now, tokens);
    const at = Math.floor(now);
    const state = this.#touch(clientKey, at);
    state.tokens += tokens;
    const left = this.#policy.dailyTokenCeiling - state.tokens;
    return left > 0
      ? { allowed: true, remaining: left }
      : { allowed: false, reason: 'daily_tokens_exhausted', retryAfterMs: msUntilUtcMidnight(at) };
  }

  async close(): Promise<void> {
    this.#clients.clear();
  }

  /** Fetch-or-create the client's state, roll the day over, mark it most recently used, evict beyond the bound. */
  #touch(clientKey: string, now: number): ClientState {
    const day = utcDay(now);
    let state = this.#clients.get(clientKey);
    if (state === undefined) {
      state = { hits: [], day, tokens: 0 };
    } else {
      this.#clients.delete(clientKey);
      if (state.day !== day) {
        state.day = day;
        state.tokens = 0;
      }
    }
    this.#clients.set(clientKey, state);
    while (this.#clients.size > this.#maxClients) {
      const leastRecent = this.#clients.keys().next();
      if (leastRecent.done) break;
      this.#clients.delete(leastRecent.value);
    }
    return state;
  }
}
