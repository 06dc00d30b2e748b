import { round3 } from '@sandscope/engine';
import { scrubDeep, type SecretScrubber } from '@sandscope/engine/models';
import type { NodeEvent, ProviderRunEvent, RunEvent, RunEventSink } from '@sandscope/engine/orchestrator';
import { appendRunEvents, type Queryable, type SpanInput, type SpendKind } from '@sandscope/store';
import type { RunTrace } from '../telemetry/otlp-tracing.ts';
import { createSpanExporter, type Span, type SpanExporter } from '../telemetry/span-exporter.ts';
import type { ServiceMetrics } from './metrics.ts';
import { liveProviderEventView, type NodeEventView, nodeEventView, type ProviderEventView, providerEventRow } from './run-views.ts';

/** What a run streams to whoever started it, as it happens. */
export type RunStreamEvent = { readonly type: 'node'; readonly data: NodeEventView } | { readonly type: 'provider'; readonly data: ProviderEventView };

export type RunStreamSink = (event: RunStreamEvent) => void;

export interface RunRecorderOptions {
  /** Where the events are written: the database, or the transaction an approval run is recorded in. */
  readonly db: Queryable;
  readonly runId: string;
  readonly metrics: ServiceMetrics;
  /** Attribute names a span may keep (T-16); see span-attributes.ts. */
  readonly allow: readonly string[];
  /** The caller's observer (the SSE stream): told each event after it is stored. */
  readonly forward?: RunStreamSink;
  /** Configured secrets, scrubbed from every attribute and message before it is stored or forwarded (issue 12, defect 3). */
  readonly scrub?: SecretScrubber;
  /** This run's OpenTelemetry trace: told each span as it was stored (allowlisted, scrubbed), never more. */
  readonly trace?: RunTrace;
}

/** One event waiting for the next flush, in the order the run emitted it. */
type Pending = { readonly type: 'node'; readonly span: SpanInput } | { readonly type: 'provider'; readonly event: ProviderRunEvent };

/**
 * Writes one run's events to the store as they happen: node events as spans
 * (through the allowlisting span exporter, T-16), router events as
 * `provider_event` rows, spend-guard reservations and settlements as ledger
 * lines.
 *
 * ADR-0004: writes are batched per flush. Whatever the run emits in one turn of
 * the event loop is appended by ONE statement (appendRunEvents) on the next
 * turn — or, if a flush is already writing, as soon as it is done — instead of
 * a committed statement per event, which cost more than the graph itself. A
 * kill -9 loses at most the events of the flush in progress, none of which any
 * client has seen:
 *
 * an event is forwarded to the caller only after the flush holding it is
 * committed, and in its stored (allowlisted) form, so what a client watched
 * live is exactly what the record says (run-recorder.test.ts checks it against
 * what is committed at each forward). The graph's event sink is synchronous and
 * must not throw, so failures surface from `drain()`, which waits for every
 * event so far to be written and reports the first write that failed.
 */
export class RunRecorder {
  readonly nodeEvents: NodeEventView[] = [];
  readonly providerEvents: ProviderEventView[] = [];
  readonly #options: RunRecorderOptions;
  readonly #exporter: SpanExporter;
  readonly #scrub: SecretScrubber;
  #pending: Pending[] = [];
  #spend: { kind: SpendKind; usd: number; provider: string | null }[] = [];
  #flushing: Promise<void> | null = null;
  #scheduled = false;
  #failure: { error: unknown } | undefined;

  constructor(options: RunRecorderOptions) {
    this.#options = options;
    this.#scrub = options.scrub ?? ((text: string) => text);
    this.#exporter = createSpanExporter({
      allow: options.allow,
      // Called synchronously by export(): the span joins the pending flush in the order the run emitted it.
      sink: async (span) => {
        // Defect 3: a draft or an error can carry a secret into a node's outputs; it is scrubbed before the row exists.
        const attributes = scrubDeep({ ...span.attributes }, this.#scrub);
        this.#pending.push({
          type: 'node',
          span: {
            node: span.name,
            kind: span.endMs === undefined ? 'start' : 'end',
            durationMs: span.endMs === undefined ? null : round3(span.endMs - span.startMs),
            attributes,
            at: new Date(span.endMs ?? span.startMs),
          },
        });
        options.trace?.node({ ...span, attributes });
      },
    });
  }

  /** The graph's sink for this run. Never throws; failures surface from `drain()`. */
  readonly sink: RunEventSink = (event: RunEvent) => {
    const { metrics } = this.#options;
    switch (event.type) {
      case 'node':
        if (event.kind === 'end' && event.durationMs !== undefined) metrics.nodeDuration(event.node, event.durationMs);
        void this.#exporter.export(spanOf(event)).catch((error: unknown) => {
          this.#failure ??= { error };
        });
        this.#schedule();
        return;
      case 'provider':
        metrics.providerEvent(event.provider, event.kind);
        // Defect 3: the router already allowlists provider text; the configured secrets are scrubbed here too, whatever the router was given.
        this.#pending.push({
          type: 'provider',
          event: event.message === undefined || !this.#options.scrub ? event : { ...event, message: this.#options.scrub(event.message) },
        });
        this.#schedule();
        return;
      case 'spend': {
        const spend = event.event;
        if (spend.kind === 'reserved') {
          this.#spend.push({ kind: 'reserve', usd: spend.usd, provider: spend.pricedAgainst ?? null });
        } else if (spend.kind === 'settled') {
          metrics.spend(spend.actualUsd);
          this.#spend.push({ kind: 'settle', usd: spend.actualUsd, provider: spend.provider ?? null });
          this.#spend.push({ kind: 'release', usd: spend.reservedUsd, provider: spend.provider ?? null });
        }
        // A refusal books nothing: no call was made (the attempt records it).
        this.#schedule();
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

  /** Waits for every event so far to be written; throws the first write that failed. */
  async drain(): Promise<void> {
    for (;;) {
      if (this.#flushing) await this.#flushing;
      else if (this.#hasPending()) this.#flushing = this.#flush();
      else break;
    }
    if (this.#failure) throw this.#failure.error;
  }

  #hasPending(): boolean {
    return this.#pending.length > 0 || this.#spend.length > 0;
  }

  /** The next turn of the event loop flushes: what the run emits until then is one statement. */
  #schedule(): void {
    if (this.#scheduled || this.#flushing) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      if (!this.#flushing && this.#hasPending()) this.#flushing = this.#flush();
    });
  }

  /** Appends what is pending, one statement per batch, until nothing is; forwards each batch once it is committed. */
  async #flush(): Promise<void> {
    const { db, runId } = this.#options;
    try {
      while (this.#hasPending()) {
        const batch = this.#pending;
        const spend = this.#spend;
        this.#pending = [];
        this.#spend = [];
        const spans = batch.flatMap((p) => (p.type === 'node' ? [p.span] : []));
        const providers = batch.flatMap((p) => (p.type === 'provider' ? [p.event] : []));
        let stored: Awaited<ReturnType<typeof appendRunEvents>>;
        try {
          stored = await appendRunEvents(db, runId, { spans, providerEvents: providers.map(providerEventRow), spend });
        } catch (error) {
          // Not forwarded: the client must never see what the record lacks.
          this.#failure ??= { error };
          continue;
        }
        let s = 0;
        let p = 0;
        for (const item of batch) {
          if (item.type === 'node') {
            const view = nodeEventView(runId, stored.spans[s++]!);
            this.nodeEvents.push(view);
            this.#forward({ type: 'node', data: view });
          } else {
            const view = liveProviderEventView(runId, stored.providerEventSeqs[p++]!, item.event);
            this.providerEvents.push(view);
            this.#forward({ type: 'provider', data: view });
          }
        }
      }
    } finally {
      this.#flushing = null;
    }
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
