import type { Queryable } from './database.ts';
import { iso, requireUuid } from './values.ts';

export interface ProviderEventInput {
  readonly provider: string;
  /** e.g. 'call', 'failover', 'disabled'. */
  readonly kind: string;
  /** e.g. 'ok', 'rate_limited', 'error'. */
  readonly status: string;
  readonly message?: string | null;
  readonly latencyMs?: number | null;
  readonly tokens?: number | null;
  readonly costUsd?: number | null;
}

export interface ProviderEventRecord extends ProviderEventInput {
  readonly seq: number;
  readonly message: string | null;
  readonly latencyMs: number | null;
  readonly tokens: number | null;
  readonly costUsd: number | null;
  readonly at: string;
}

/** Appends what the router did for a run, in order; committed immediately, like spans. */
export async function recordProviderEvent(db: Queryable, runId: string, event: ProviderEventInput): Promise<number> {
  requireUuid(runId, 'run id');
  const [row] = await db.query<{ seq: number }>(
    `insert into provider_event (run_id, seq, provider, kind, status, message, latency_ms, tokens, cost_usd)
     select $1, coalesce((select max(seq) from provider_event where run_id = $1), 0) + 1, $2, $3, $4, $5, $6, $7, $8
     returning seq`,
    [runId, event.provider, event.kind, event.status, event.message ?? null, event.latencyMs ?? null, event.tokens ?? null, event.costUsd ?? null],
  );
  return row!.seq;
}

export async function listProviderEvents(db: Queryable, runId: string): Promise<ProviderEventRecord[]> {
  requireUuid(runId, 'run id');
  const rows = await db.query<{
    seq: number;
    provider: string;
    kind: string;
    status: string;
    message: string | null;
    latency_ms: number | null;
    tokens: number | null;
    cost_usd: number | null;
    at: Date;
  }>(
    `select seq, provider, kind, status, message, latency_ms, tokens, cost_usd::float8 as cost_usd, at
     from provider_event where run_id = $1 order by seq`,
    [runId],
  );
  return rows.map((r) => ({
    seq: r.seq,
    provider: r.provider,
    kind: r.kind,
    status: r.status,
    message: r.message,
    latencyMs: r.latency_ms,
    tokens: r.tokens,
    costUsd: r.cost_usd,
    at: iso(r.at),
  }));
}
