import { errorCodeOf, type KnowledgeBase } from '@sandscope/engine';
import type { ProviderHealth, RouterCandidate, SpendLedger } from '@sandscope/engine/models';
import type { Database, OwnerLease, VectorSearch } from '@sandscope/store';
import type { RateLimiter } from '../limits/limiter.ts';
import { passwordRefusalOf, passwordRefusalWords } from '../limits/redis-password.ts';

export interface HealthPart {
  readonly status: 'ok' | 'degraded';
  readonly detail: string;
}

/** `GET /healthz`: one part per dependency; `degraded` when any part is. */
export interface HealthReport {
  readonly status: 'ok' | 'degraded';
  readonly parts: {
    readonly database: HealthPart;
    readonly limiter: HealthPart;
    readonly embedder: HealthPart;
    readonly vectorSearch: HealthPart;
    readonly providers: HealthPart;
    readonly spendLedger: HealthPart;
  };
}

export interface HealthOptions {
  readonly db: Database;
  /** This process's run-ownership lease: while it is lost, runs are refused (defect 4). */
  readonly lease?: Pick<OwnerLease, 'held'>;
  readonly vectorSearch: VectorSearch;
  readonly limiter: RateLimiter;
  /** How the limiter is reported: the one REDIS_URL selects, or one handed in by the caller. */
  readonly limiterKind: 'in-process' | 'redis' | 'injected';
  readonly kb: KnowledgeBase;
  readonly candidates: readonly RouterCandidate[];
  readonly providerHealth: ProviderHealth;
  /** The deployment's daily spend ledger (DAILY_SPEND_CEILING_USD): unreachable or spent, no priced call is made. */
  readonly spendLedger: Pick<SpendLedger, 'usage' | 'description' | 'ceilingUsd' | 'declaredCeilingUsd'>;
  readonly now?: () => number;
  /** A dependency slower than this to answer counts as down (default 1000 ms). */
  readonly timeoutMs?: number;
}

/** The key the probe charges 0 tokens to: a round trip to the limiter's store that changes no client's count. */
const PROBE_CLIENT = 'healthz-probe';

/**
 * Asks each part, now. A degraded part is reported as degraded — never as a
 * weak normal state (ARCHITECTURE.md) — and the service keeps answering what it
 * can: an unreachable limiter means runs are refused (503, fail closed), an
 * in-process vector search means the database has no pgvector.
 */
export async function checkHealth(o: HealthOptions): Promise<HealthReport> {
  const timeoutMs = o.timeoutMs ?? 1_000;
  const now = o.now ?? Date.now;
  const [database, limiter, embedder, spendLedger] = await Promise.all([
    probe(
      timeoutMs,
      async () => {
        await o.db.query('select 1');
        if (o.lease && !o.lease.held) {
          return {
            status: 'degraded',
            detail: `${o.db.dialect}: run-ownership lease lost with its connection, renewing — runs are refused (503 store_unavailable) until then`,
          };
        }
        return { status: 'ok', detail: o.db.dialect };
      },
      `unreachable — runs are refused (503 store_unavailable) until it is back`,
    ),
    probe(timeoutMs, async () => {
      try {
        await o.limiter.chargeTokens(PROBE_CLIENT, 0, now());
        return { status: 'ok', detail: o.limiterKind };
      } catch (error) {
        if (errorCodeOf(error) === 'limiter_unavailable')
          return {
            status: 'degraded',
            detail: `${o.limiterKind}: ${refusedOrUnreachable(error)} — runs are refused (503 limiter_unavailable) until ${passwordRefusalOf(error) ? 'then' : 'it recovers'}`,
          };
        throw error;
      }
    }),
    probe(timeoutMs, async () => {
      const retrieval = await o.kb.retrieve('health probe');
      return retrieval.degraded
        ? { status: 'degraded', detail: `lexical only: ${retrieval.degradedReason ?? 'embedder unavailable'}` }
        : { status: 'ok', detail: 'hashing embedder, hybrid retrieval' };
    }),
    // S-139: the ledger every priced call books against was not asked, so /healthz said ok while every priced call
    // failed closed on it. No amounts: the endpoint is public.
    probe(
      timeoutMs,
      async () => {
        let usage: Awaited<ReturnType<typeof o.spendLedger.usage>>;
        try {
          usage = await o.spendLedger.usage();
        } catch (error) {
          // S-275: a password Redis refuses is a setting to fix, not an outage to wait out: said so, in words.
          if (!passwordRefusalOf(error)) throw error;
          return { status: 'degraded', detail: `${o.spendLedger.description}: ${refusedOrUnreachable(error)} — priced model calls are not made until then` };
        }
        if (usage.spentUsd + usage.reservedUsd >= usage.ceilingUsd)
          return { status: 'degraded', detail: `${o.spendLedger.description}: today's ceiling is reached — priced model calls are refused until 00:00 UTC` };
        // S-144: the day holds the lowest ceiling any replica declared; a replica set higher says so, since its own setting is not what applies.
        // S-259: compared with its own setting: the ledger's `ceilingUsd` reads the one in force once usage() has.
        return usage.ceilingUsd < (o.spendLedger.declaredCeilingUsd ?? o.spendLedger.ceilingUsd)
          ? { status: 'ok', detail: `${o.spendLedger.description}: another replica's lower DAILY_SPEND_CEILING_USD holds today (this one is set higher)` }
          : { status: 'ok', detail: o.spendLedger.description };
      },
      `${o.spendLedger.description}: unreachable — priced model calls are not made until it is back`,
    ),
  ]);
  const vectorSearch: HealthPart =
    o.vectorSearch === 'pgvector'
      ? { status: 'ok', detail: 'pgvector' }
      : { status: 'degraded', detail: 'in-process: this database has no pgvector extension; chunk similarity is computed in the agent' };
  const cooling = o.candidates.filter((c) => o.providerHealth.isCoolingDown(c.name));
  const order = o.candidates.map((c) => c.name).join(' > ');
  const providers: HealthPart =
    cooling.length === 0
      ? { status: 'ok', detail: order }
      : {
          status: 'degraded',
          detail: `${order}; cooling down after a 429: ${cooling.map((c) => `${c.name} (${Math.ceil(o.providerHealth.cooldownRemainingMs(c.name) / 1000)} s)`).join(', ')}`,
        };
  const parts = { database, limiter, embedder, vectorSearch, providers, spendLedger };
  return { status: Object.values(parts).every((p) => p.status === 'ok') ? 'ok' : 'degraded', parts };
}

/**
 * S-275: why a Redis part is down. A refused password was "unreachable", so an operator waited for a server that was up
 * and read a wrong setting as an outage. No error text: the endpoint is public, and the words name no host.
 */
function refusedOrUnreachable(error: unknown): string {
  const refusal = passwordRefusalOf(error);
  return refusal ? `${passwordRefusalWords(refusal)}; set the right one and restart this replica` : 'unreachable';
}

async function probe(timeoutMs: number, check: () => Promise<HealthPart>, unreachable = 'unreachable'): Promise<HealthPart> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<HealthPart>((resolve) => {
    timer = setTimeout(() => resolve({ status: 'degraded', detail: `no answer within ${timeoutMs} ms` }), timeoutMs);
  });
  try {
    return await Promise.race([
      // The endpoint is public: say which part is down, never the error text (it can name hosts).
      check().catch(() => ({ status: 'degraded' as const, detail: unreachable })),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
