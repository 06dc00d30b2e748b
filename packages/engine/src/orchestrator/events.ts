import type { LanguageModelV3Usage } from '@ai-sdk/provider';
import type { CacheEvent } from '../models/semantic-cache.ts';
import type { ProviderEvent } from '../models/router.ts';
import type { SpendEvent } from '../models/spend-guard.ts';
import type { Clock } from '../clock.ts';
import type { NodeId } from './graph-shape.ts';

/** The engine's one Clock (clock.ts), re-exported where the orchestrator's callers name it: a run's timings are reproducible in tests. */
export type { Clock };

/**
 * One node starting or ending. `data` carries the node's key outputs — what a
 * reviewer needs to see why the run went where it went — never the whole state.
 */
export interface NodeEvent {
  readonly type: 'node';
  readonly runId: string;
  /** Position in this run's trace, from 1; shared with every other event type so the trace is one ordered list. */
  readonly seq: number;
  readonly node: NodeId;
  readonly kind: 'start' | 'end';
  readonly at: number;
  /** On `end` only. */
  readonly durationMs?: number;
  readonly data: Readonly<Record<string, unknown>>;
}

/** What a provider did with one model call, as the router reported it; `node` is the node that made the call. */
export interface ProviderRunEvent {
  readonly type: 'provider';
  readonly runId: string;
  readonly seq: number;
  readonly node: NodeId | null;
  readonly at: number;
  readonly provider: string;
  readonly kind: ProviderEvent['kind'];
  readonly status?: number;
  readonly message?: string;
  readonly latencyMs: number;
  readonly tokensIn?: number;
  readonly tokensOut?: number;
  readonly costUsd?: number;
}

/** The semantic cache's decision for one call: a `bypass` is a correction retry refused the cache (D-006). */
export interface CacheRunEvent {
  readonly type: 'cache';
  readonly runId: string;
  readonly seq: number;
  readonly node: NodeId | null;
  readonly at: number;
  readonly event: CacheEvent;
}

/** A reservation or settlement by the run's spend guard: the ledger behind `spend`. */
export interface SpendRunEvent {
  readonly type: 'spend';
  readonly runId: string;
  readonly seq: number;
  readonly node: NodeId | null;
  readonly at: number;
  readonly event: SpendEvent;
}

/** A run's trace is the ordered list of these (seq ascending). */
export type RunEvent = NodeEvent | ProviderRunEvent | CacheRunEvent | SpendRunEvent;

/** Where a run's events go as they happen (SSE, the span store, a test's array). Must not throw. */
export type RunEventSink = (event: RunEvent) => void;

/** What the router's sink reports, flattened for the trace (usage as two numbers). */
export function providerFields(event: ProviderEvent): Omit<ProviderRunEvent, 'type' | 'runId' | 'seq' | 'node' | 'at'> {
  const tokens = usageTokens(event.usage);
  return {
    provider: event.provider,
    kind: event.kind,
    ...(event.status !== undefined ? { status: event.status } : {}),
    ...(event.message !== undefined ? { message: event.message } : {}),
    latencyMs: event.latencyMs,
    ...(tokens.tokensIn !== undefined ? { tokensIn: tokens.tokensIn } : {}),
    ...(tokens.tokensOut !== undefined ? { tokensOut: tokens.tokensOut } : {}),
    ...(event.costUsd !== undefined ? { costUsd: event.costUsd } : {}),
  };
}

export function usageTokens(usage: LanguageModelV3Usage | undefined): { tokensIn?: number; tokensOut?: number } {
  const tokensIn = usage?.inputTokens.total;
  const tokensOut = usage?.outputTokens.total;
  return { ...(tokensIn !== undefined ? { tokensIn } : {}), ...(tokensOut !== undefined ? { tokensOut } : {}) };
}

/**
 * One run's trace: stamps every event with the run id, the next sequence number
 * and the clock, keeps it, and hands it to the sinks. A sink that throws is a
 * bug in the sink; it must not take the run down, so it is isolated here.
 */
export class TraceRecorder {
  readonly events: RunEvent[] = [];
  private seq = 0;
  /** The node currently running, so provider/cache/spend events can say which node made the call. */
  current: NodeId | null = null;

  constructor(
    readonly runId: string,
    private readonly clock: Clock,
    private readonly sinks: readonly RunEventSink[],
  ) {}

  now(): number {
    return this.clock();
  }

  node(node: NodeId, kind: 'start' | 'end', data: Readonly<Record<string, unknown>>, durationMs?: number): NodeEvent {
    return this.push({
      type: 'node',
      runId: this.runId,
      seq: ++this.seq,
      node,
      kind,
      at: this.clock(),
      ...(durationMs !== undefined ? { durationMs } : {}),
      data,
    });
  }

  provider(event: ProviderEvent): void {
    this.push({ type: 'provider', runId: this.runId, seq: ++this.seq, node: this.current, at: this.clock(), ...providerFields(event) });
  }

  cache(event: CacheEvent): void {
    this.push({ type: 'cache', runId: this.runId, seq: ++this.seq, node: this.current, at: this.clock(), event });
  }

  spend(event: SpendEvent): void {
    this.push({ type: 'spend', runId: this.runId, seq: ++this.seq, node: this.current, at: this.clock(), event });
  }

  private push<E extends RunEvent>(event: E): E {
    this.events.push(event);
    for (const sink of this.sinks) {
      try {
        sink(event);
      } catch {
        // A broken observer must not change the run it observes.
      }
    }
    return event;
  }
}
