import type { Clock } from '../clock.ts';

/** Re-exported: the model layer's callers name it from here. Cooldown expiry is tested by advancing a number, not by waiting. */
export type { Clock };

export interface ProviderHealthOptions {
  readonly clock?: Clock;
  /** Longest a single 429 may disable a provider, whatever Retry-After says. Default 60. */
  readonly maxCooldownSeconds?: number;
  /** Cooldown when a 429 carries no usable Retry-After. Default 30. */
  readonly defaultCooldownSeconds?: number;
}

/**
 * Process-wide memory of which providers are rate-limited, shared by every run's
 * router: a 429 seen by one visitor's run is real for all of them, so nobody
 * keeps hammering a provider that has said stop.
 *
 * Only a real provider 429 writes here. Failure injection from the console never
 * does — that is scoped to one run (T-6), and letting it reach this shared state
 * would let one visitor degrade another's runs.
 *
 * The cooldown is bounded (Retry-After capped) so a provider that sends an
 * absurd Retry-After is not lost for the life of the process.
 */
export class ProviderHealth {
  readonly maxCooldownSeconds: number;
  readonly defaultCooldownSeconds: number;
  private readonly clock: Clock;
  private readonly until = new Map<string, number>();

  constructor(options: ProviderHealthOptions = {}) {
    this.clock = options.clock ?? Date.now;
    this.maxCooldownSeconds = options.maxCooldownSeconds ?? 60;
    this.defaultCooldownSeconds = options.defaultCooldownSeconds ?? 30;
  }

  now(): number {
    return this.clock();
  }

  /** True while a provider's cooldown has not yet expired. */
  isCoolingDown(provider: string): boolean {
    return this.cooldownRemainingMs(provider) > 0;
  }

  cooldownRemainingMs(provider: string): number {
    const until = this.until.get(provider);
    if (until === undefined) return 0;
    const remaining = until - this.clock();
    if (remaining <= 0) {
      this.until.delete(provider);
      return 0;
    }
    return remaining;
  }

  /**
   * Disables a provider after a 429 for `retryAfterSeconds` (capped), or the
   * default when the provider gave none. Never shortens a longer cooldown
   * already in force. Returns the cooldown applied, in seconds.
   */
  markRateLimited(provider: string, retryAfterSeconds: number | undefined): number {
    const requested = retryAfterSeconds ?? this.defaultCooldownSeconds;
    const seconds = Math.min(Math.max(0, requested), this.maxCooldownSeconds);
    const until = this.clock() + seconds * 1000;
    const existing = this.until.get(provider) ?? 0;
    if (until > existing) this.until.set(provider, until);
    return seconds;
  }
}

/**
 * Seconds a 429 asks us to wait, from `retry-after-ms` (OpenAI-style), or
 * `retry-after` as delta-seconds or an HTTP date. Undefined when absent or
 * unreadable — the caller applies its default rather than guessing zero.
 */
export function retryAfterSeconds(headers: Record<string, string | undefined> | undefined, nowMs: number): number | undefined {
  if (!headers) return undefined;
  const lower = new Map(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v?.trim()]));
  const ms = lower.get('retry-after-ms');
  if (ms && /^\d+(\.\d+)?$/.test(ms)) return Number(ms) / 1000;
  const value = lower.get('retry-after');
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value);
  const date = Date.parse(value);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, (date - nowMs) / 1000);
}
