import { randomUUID } from 'node:crypto';
import { type Admission, type LimiterPolicy, type RateLimiter, type TokenReservation, DEFAULT_RESERVATION_TTL_MS, RESERVED_RETRY_AFTER_MS } from './limiter.ts';
import { assertLimiterArgs, assertLimiterPolicy, assertReservation, msUntilUtcMidnight, utcDay } from './limiter-checks.ts';

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
  /** UTC day the token counts belong to. */
  day: string;
  /** Settled tokens today. */
  tokens: number;
  /** Today's open reservations (defect 1): id → tokens and when it expires unsettled. */
  holds: Map<string, { readonly tokens: number; readonly expiresAt: number }>;
  /** Sum of `holds`' tokens. */
  held: number;
}

/**
 * The default limiter: one process, no server needed (a fresh laptop has no Redis).
 * Not shared between replicas — each process counts on its own, which is why
 * `REDIS_URL` exists.
 *
 * Never throws `LimiterUnavailableError`: its store is its own memory.
 */
export class InProcessLimiter implements RateLimiter {
  readonly #policy: Required<LimiterPolicy>;
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
      reservationTtlMs: options.reservationTtlMs ?? DEFAULT_RESERVATION_TTL_MS,
    };
    this.#maxClients = maxClients;
  }

  /** How many clients are currently tracked (for the bounded-memory test). */
  get trackedClients(): number {
    return this.#clients.size;
  }

  async admit(clientKey: string, now: number, reserveTokens = 0): Promise<Admission> {
    assertLimiterArgs(clientKey, now, reserveTokens);
    const at = Math.floor(now);
    const state = this.#touch(clientKey, at);
    const { windowMs, maxRequests, dailyTokenCeiling, reservationTtlMs } = this.#policy;

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
    // Defect 1: check and book in one synchronous step (no await in between), so
    // concurrent admissions cannot all see the same room under the ceiling.
    if (reserveTokens > 0 && state.tokens + state.held >= dailyTokenCeiling) {
      return { allowed: false, reason: 'rate_limited', retryAfterMs: RESERVED_RETRY_AFTER_MS };
    }
    state.hits.push(at);
    const remaining = maxRequests - state.hits.length;
    if (reserveTokens === 0) return { allowed: true, remaining };
    const reservation: TokenReservation = { clientKey, id: randomUUID(), tokens: reserveTokens, day: state.day };
    state.holds.set(reservation.id, { tokens: reserveTokens, expiresAt: at + reservationTtlMs });
    state.held += reserveTokens;
    return { allowed: true, remaining, reservation };
  }

  async chargeTokens(clientKey: string, tokens: number, now: number): Promise<Admission> {
    assertLimiterArgs(clientKey, now, tokens);
    const at = Math.floor(now);
    const state = this.#touch(clientKey, at);
    state.tokens += tokens;
    return this.#left(state.tokens, at);
  }

  async settleTokens(reservation: TokenReservation, actualTokens: number, now: number): Promise<Admission> {
    assertReservation(reservation);
    assertLimiterArgs(reservation.clientKey, now, actualTokens);
    const at = Math.floor(now);
    const state = this.#touch(reservation.clientKey, at);
    // A reservation from a day that has since ended settles against that day's count, which is gone:
    // today's count is not touched (the Redis limiter settles into the old day's key, which nobody reads).
    if (reservation.day !== state.day) return this.#left(0, at);
    const hold = state.holds.get(reservation.id);
    if (hold !== undefined) {
      state.holds.delete(reservation.id);
      state.held -= hold.tokens;
    }
    state.tokens += actualTokens;
    return this.#left(state.tokens, at);
  }

  #left(used: number, at: number): Admission {
    const left = this.#policy.dailyTokenCeiling - used;
    return left > 0 ? { allowed: true, remaining: left } : { allowed: false, reason: 'daily_tokens_exhausted', retryAfterMs: msUntilUtcMidnight(at) };
  }

  async close(): Promise<void> {
    this.#clients.clear();
  }

  /**
   * Fetch-or-create the client's state, roll the day over, release reservations
   * that expired unsettled, mark it most recently used, evict beyond the bound.
   */
  #touch(clientKey: string, now: number): ClientState {
    const day = utcDay(now);
    let state = this.#clients.get(clientKey);
    if (state === undefined) {
      state = { hits: [], day, tokens: 0, holds: new Map(), held: 0 };
    } else {
      this.#clients.delete(clientKey);
      if (state.day !== day) {
        state.day = day;
        state.tokens = 0;
        state.holds.clear();
        state.held = 0;
      }
      for (const [id, hold] of state.holds) {
        if (hold.expiresAt > now) continue;
        state.holds.delete(id);
        state.held -= hold.tokens;
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
