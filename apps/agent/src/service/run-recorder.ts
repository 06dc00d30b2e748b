import { round3 } from '@sandscope/engine';
import { scrubDeep, type SecretScrubber } from '@sandscope/engine/models';
import type { NodeEvent, RunEvent, RunEventSink } from '@sandscope/engine/orchestrator';
import { appendSpan, type Database, recordProviderEvent, recordSpend } from '@sandscope/store';
import { createSpanExporter, type Span, type SpanExporter } from '../telemetry/span-exporter.ts';
import type { ServiceMetrics } from './metrics.ts';
import { liveProviderEventView, type NodeEventView, nodeEventView, type ProviderEventView, providerEventRow } from './run-views.ts';

/** What a run streams to whoever started it, as it happens. */
export type RunStreamEvent = { readonly type: 'node'; readonly data: NodeEventView } | { readonly type: 'provider'; readonly data: ProviderEventView };

export type RunStreamSink = (event: RunStreamEvent) => void;

export interface RunRecorderOptions {
  readonly db: Database;
  readonly runId: string;
  readonly metrics: ServiceMetrics;
  /** Attribute names a span may keep (T-16); see span-attributes.ts. */
  readonly allow: readonly string[];
  /** The caller's observer (the SSE stream): told each event after it is stored. */
  readonly forward?: RunStreamSink;
  /** Configured secrets, scrubbed from every attribute and message before it is stored or forwarded (issue 12, defect 3). */
  readonly scrub?: SecretScrubber;
}


/**
 * Writes one run's events to the store as they happen: node events as spans
 * (through the allowlisting span exporter, T-16), router events as
 * `provider_event` rows, spend-guard reservations and settlements as ledger
 * lines. Each write is its own committed statement, so a kill -9 mid-run loses
 * nothing already written.
 *
 * The graph's event sink is synchronous and must not throw, so writes go onto
 * one queue per run, in order; `drain()` waits for the queue and reports the
 * first write that failed. An event is forwarded to the caller only after it is
 * stored, and in its stored (allowlisted) form: what a client watched live is
 * exactly what the record says.
 */
export class RunRecorder {
  readonly nodeEvents: NodeEventView[] = [];
  readonly providerEvents: ProviderEventView[] = [];
  readonly #options: RunRecorderOptions;
  readonly #exporter: SpanExporter;
  #queue: Promise<void> = Promise.resolve();
  #failure: { error: unknown } | undefined;

  constructor(options: RunRecorderOptions) {
    this.#options = options;
    const { db, runId } = options;
    const scrub = options.scrub ?? ((text: string) => text);
    this.#exporter = createSpanExporter({
      allow: options.allow,
      sink: async (span) => {
        const stored = await appendSpan(db, runId, {
          node: span.name,
          kind: span.endMs === undefined ? 'start' : 'end',
          durationMs: span.endMs === undefined ? null : round3(span.endMs - span.startMs),
          // Defect 3: a draft or an error can carry a secret into a node's outputs; it is scrubbed before the row exists.
          attributes: scrubDeep({ ...span.attributes }, scrub),
          at: new Date(span.endMs ?? span.startMs),
        });
        const view = nodeEventView(runId, stored);
        this.nodeEvents.push(view);
        this.#forward({ type: 'node', data: view });
      },
    });
  }

  /** The graph's sink for this run. Never throws; failures surface from `drain()`. */
  readonly sink: RunEventSink = (event: RunEvent) => {
    const { metrics } = this.#options;
    switch (event.type) {
      case 'node':
        if (event.kind === 'end' && event.durationMs !== undefined) metrics.nodeDuration(event.node, event.durationMs);
        this.#enqueue(() => this.#exporter.export(spanOf(event)));
        return;
      case 'provider':
        metrics.providerEvent(event.provider, event.kind);
        this.#enqueue(async () => {
          // Defect 3: the router already allowlists provider text; the configured secrets are scrubbed here too, whatever the router was given.
          const scrubbed = event.message === undefined || !this.#options.scrub ? event : { ...event, message: this.#options.scrub(event.message) };
          const seq = await recordProviderEvent(this.#options.db, this.#options.runId, providerEventRow(scrubbed));
          const view = liveProviderEventView(this.#options.runId, seq, scrubbed);
          this.providerEvents.push(view);
          this.#forward({ type: 'provider', data: view });
        });
        return;
      case 'spend': {
        const spend = event.event;
        const { db, runId } = this.#options;
        if (spend.kind === 'reserved') {
          this.#enqueue(() => recordSpend(db, { runId, kind: 'reserve', usd: spend.usd, provider: spend.pricedAgainst ?? null }));
        } else if (spend.kind === 'settled') {
          metrics.spend(spend.actualUsd);
          this.#enqueue(async () => {
            await recordSpend(db, { runId, kind: 'settle', usd: spend.actualUsd, provider: spend.provider ?? null });
            await recordSpend(db, { runId, kind: 'release', usd: spend.reservedUsd, provider: spend.provider ?? null });
          });
        }
        // A refusal books nothing: no call was made (the attempt records it).
        return;
      }
      case 'cache':
        metrics.cacheEvent(event.event);
        return;
    }
  };

  /** Record node events that did not come through the graph (an approval run's own trace). */
  recordNodeEvents(events: readonly NodeEvent[]): void {
    for (const event of events) this.sink(event);
  }

  /** Waits for every write so far; throws the first one that failed. */
  async drain(): Promise<void> {
    await this.#queue;
    if (this.#failure) throw this.#failure.error;
  }

  #enqueue(write: () => Promise<void>): void {
    this.#queue = this.#queue.then(write).catch((error: unknown) => {
      this.#failure ??= { error };
    });
  }

  #forward(event: RunStreamEvent): void {
    try {
      this.#options.forward?.(event);
    } catch {
      // A broken observer (a closed stream) must not change what is recorded.
    }
  }
}

/** A node event as a span: an `end` spans its duration; a `start` is a point. */
function spanOf(event: NodeEvent): Span {
  const end = event.kind === 'end';
  return {
    name: event.node,
    runId: event.runId,
    spanId: String(event.seq),
    startMs: end ? event.at - (event.durationMs ?? 0) : event.at,
    ...(end ? { endMs: event.at } : {}),
    status: 'error' in event.data ? 'error' : 'ok',
    attributes: event.data,
  };
}
