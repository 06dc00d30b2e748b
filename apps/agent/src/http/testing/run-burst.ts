import type { CacheEntry, CacheStore } from '@sandscope/engine/models';
import { expect } from 'vitest';
import { LIMIT_ERROR_REMEDIES, type RefusalReason } from '../../limits/limiter.ts';
import type { RunResultView } from '../../service/run-views.ts';
import { parseSse } from './sse-events.ts';

/** Anything that answers `app.request` (a Hono app). */
export interface RequestTarget {
  request(path: string, init: RequestInit): Response | Promise<Response>;
}

/** What a burst of runs from one client measured (issue 12, defect 1). */
export interface BurstTally {
  admitted: number;
  /** Tokens the admitted runs' providers reported: what the daily ceiling is charged. */
  used: number;
  /** The most tokens any one run used: held to RUN_TOKEN_BUDGET by the run's spend guard. */
  maxRun: number;
  readonly refused: Partial<Record<RefusalReason, number>>;
}

export function emptyTally(): BurstTally {
  return { admitted: 0, used: 0, maxRun: 0, refused: {} };
}

/**
 * `count` concurrent `POST /v1/runs` from one address, spread round-robin over
 * `targets` (two targets with limiters on one store are two replicas). Every
 * refusal must be a 429 with the limiter's code and remedy — never a 5xx, never
 * a run — and is tallied by code; admitted runs are tallied with their tokens.
 */
export async function burstOfRuns(
  targets: readonly RequestTarget[],
  count: number,
  options: { token: string; address: string; tally: BurstTally },
): Promise<BurstTally> {
  const { tally } = options;
  const responses = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      Promise.resolve(
        targets[i % targets.length]!.request('/v1/runs', {
          method: 'POST',
          headers: { authorization: `Bearer ${options.token}`, 'content-type': 'application/json', 'x-forwarded-for': options.address },
          // One answerable question: every run drafts (a refused question makes no model call and spends nothing).
          body: JSON.stringify({ question: 'What is the connection pool ceiling for orders-db?' }),
        }),
      ).then(async (res) => ({ status: res.status, text: await res.text() })),
    ),
  );
  for (const r of responses) {
    if (r.status !== 200) {
      expect(r.status, r.text).toBe(429);
      const { error } = JSON.parse(r.text) as { error: { code: RefusalReason; message: string } };
      expect(error.message).toBe(LIMIT_ERROR_REMEDIES[error.code]);
      tally.refused[error.code] = (tally.refused[error.code] ?? 0) + 1;
      continue;
    }
    tally.admitted += 1;
    const result = parseSse(r.text).find((e) => e.event === 'result')?.data as RunResultView | undefined;
    expect(result, r.text).toBeDefined();
    let run = 0;
    for (const p of result?.providers ?? []) if (p.kind === 'served') run += (p.tokensIn ?? 0) + (p.tokensOut ?? 0);
    tally.used += run;
    tally.maxRun = Math.max(tally.maxRun, run);
  }
  return tally;
}

/**
 * Defect 1's scenario end to end: `concurrent` runs at once, then waves of
 * `wave` until the client's day is spent (a `daily_tokens_exhausted` refusal)
 * — so the ceiling is reached, not merely approached.
 */
export async function spendTheDay(
  targets: readonly RequestTarget[],
  options: { token: string; address: string; concurrent: number; wave: number; maxWaves: number },
): Promise<{ first: BurstTally; total: BurstTally }> {
  const first = await burstOfRuns(targets, options.concurrent, { ...options, tally: emptyTally() });
  const total: BurstTally = { ...first, refused: { ...first.refused } };
  for (let w = 0; w < options.maxWaves && !total.refused.daily_tokens_exhausted; w += 1) {
    await burstOfRuns(targets, options.wave, { ...options, tally: total });
  }
  return { first, total };
}

/** Remembers nothing: every run reaches a provider and spends tokens (a cache hit would spend none). */
export class NoCacheStore implements CacheStore {
  async get(): Promise<CacheEntry | undefined> {
    return undefined;
  }
  async set(): Promise<void> {}
  async scan(): Promise<readonly CacheEntry[]> {
    return [];
  }
  async delete(): Promise<boolean> {
    return false;
  }
}
