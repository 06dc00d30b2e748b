import type { ProviderRunEvent, RunResult } from '@sandscope/engine/orchestrator';
import type { ProviderEventInput, ProviderEventRecord, SpanRecord } from '@sandscope/store';

/**
 * The shapes docs/API.md promises for a run's events and result. One mapping
 * from each source (a stored span, a router event, a stored provider row), so
 * the SSE stream and `GET /v1/runs/:id` can never disagree about a field.
 */

/** `event: node`, and each entry of `spans` / `trace`: a node starting or ending, as stored (allowlisted data). */
export interface NodeEventView {
  readonly runId: string;
  /** The span's sequence number within the run, from 1. */
  readonly seq: number;
  readonly node: string;
  readonly kind: 'start' | 'end' | 'event';
  /** ISO 8601, as stored. */
  readonly at: string;
  readonly durationMs?: number;
  readonly data: Readonly<Record<string, unknown>>;
}

/** `event: provider`, and each entry of `providers` / `providerEvents`. */
export interface ProviderEventView {
  readonly runId: string;
  readonly seq: number;
  readonly provider: string;
  readonly kind: string;
  readonly status?: number;
  readonly message?: string;
  readonly latencyMs: number;
  readonly tokensIn?: number;
  readonly tokensOut?: number;
  /** Stored rows keep one token count (in + out); live events carry the split. */
  readonly tokens?: number;
  readonly costUsd?: number;
}

/** The run result (docs/API.md): RunResult with its trace as stored node events and its provider events as views. */
export type RunResultView = Omit<RunResult, 'trace' | 'providers'> & {
  readonly trace: readonly NodeEventView[];
  readonly providers: readonly ProviderEventView[];
};

export function nodeEventView(runId: string, span: SpanRecord): NodeEventView {
  return {
    runId,
    seq: span.seq,
    node: span.node,
    kind: span.kind,
    at: span.at,
    ...(span.durationMs !== null ? { durationMs: span.durationMs } : {}),
    data: span.attributes,
  };
}

/** A router event as it is written to `provider_event`: status is text there; the token split is summed. */
export function providerEventRow(event: ProviderRunEvent): ProviderEventInput {
  const tokens = event.tokensIn === undefined && event.tokensOut === undefined ? null : (event.tokensIn ?? 0) + (event.tokensOut ?? 0);
  return {
    provider: event.provider,
    kind: event.kind,
    status: event.status !== undefined ? String(event.status) : event.kind === 'served' ? 'ok' : 'error',
    message: event.message ?? null,
    latencyMs: Math.max(0, event.latencyMs),
    tokens,
    costUsd: event.costUsd ?? null,
  };
}

export function liveProviderEventView(runId: string, seq: number, event: ProviderRunEvent): ProviderEventView {
  return {
    runId,
    seq,
    provider: event.provider,
    kind: event.kind,
    ...(event.status !== undefined ? { status: event.status } : {}),
    ...(event.message !== undefined ? { message: event.message } : {}),
    latencyMs: event.latencyMs,
    ...(event.tokensIn !== undefined ? { tokensIn: event.tokensIn } : {}),
    ...(event.tokensOut !== undefined ? { tokensOut: event.tokensOut } : {}),
    ...(event.costUsd !== undefined ? { costUsd: event.costUsd } : {}),
  };
}

export function storedProviderEventView(runId: string, row: ProviderEventRecord): ProviderEventView {
  return {
    runId,
    seq: row.seq,
    provider: row.provider,
    kind: row.kind,
    ...(/^\d{3}$/.test(row.status) ? { status: Number(row.status) } : {}),
    ...(row.message !== null ? { message: row.message } : {}),
    latencyMs: row.latencyMs ?? 0,
    ...(row.tokens !== null ? { tokens: row.tokens } : {}),
    ...(row.costUsd !== null ? { costUsd: row.costUsd } : {}),
  };
}

/** The result as streamed, stored and returned: the engine's result with the recorded views in place of its raw trace. */
export function runResultView(result: RunResult, trace: readonly NodeEventView[], providers: readonly ProviderEventView[]): RunResultView {
  const { trace: _raw, providers: _rawProviders, ...rest } = result;
  return { ...rest, trace: [...trace], providers: [...providers] };
}
