import type { CacheEvent } from '@sandscope/engine/models';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Upper bounds, in seconds, of the node-latency histogram's buckets. */
export const NODE_LATENCY_BUCKETS_SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30] as const;

export interface ServiceMetricsOptions {
  /**
   * SANDSCOPE_REPLICA: put on every series as `replica`, so a fleet's scrapes
   * stay apart when they are summed or compared (issue 11 section 4). Default
   * `unnamed` (tests); the service passes the configured name.
   */
  readonly replica?: string;
  /** Node.js process metrics (CPU, memory, event loop, GC), prom-client's defaults. Default true. */
  readonly processMetrics?: boolean;
}

/**
 * The agent's metrics, served at `GET /metrics` in the Prometheus text format
 * by prom-client (issue 11 section 4: a fleet needs the process metrics too —
 * memory, CPU, event-loop lag — which a hand-written renderer never had).
 *
 * One registry per service, not prom-client's global one: a test composes
 * several services in one process, and each must count only its own.
 * Only labels with a closed, small set of values — verdict, terminal, node,
 * provider, event kind, status, and the replica — never a run id, a question or
 * a client key, so the series count stays bounded (and T-9 holds: nothing here
 * identifies a client).
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  readonly #runs: Counter<'verdict' | 'terminal'>;
  readonly #runFailures: Counter<'reason'>;
  readonly #inFlightGauge: Gauge;
  readonly #nodeDuration: Histogram<'node'>;
  readonly #providerEvents: Counter<'provider' | 'kind'>;
  readonly #failovers: Counter<'provider' | 'kind'>;
  readonly #cacheEvents: Counter<'event' | 'match'>;
  readonly #cacheHits: Counter;
  readonly #spend: Counter;
  readonly #responses: Counter<'status'>;
  #inFlight = 0;

  constructor(options: ServiceMetricsOptions = {}) {
    const registers = [this.registry];
    this.registry.setDefaultLabels({ replica: options.replica ?? 'unnamed' });
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry });
    this.#runs = new Counter({
      name: 'sandscope_runs_total',
      help: 'Runs that reached a terminal, by verdict and terminal.',
      labelNames: ['verdict', 'terminal'],
      registers,
    });
    this.#runFailures = new Counter({
      name: 'sandscope_run_failures_total',
      help: 'Runs that stopped without a terminal (recorded as failed).',
      labelNames: ['reason'],
      registers,
    });
    this.#inFlightGauge = new Gauge({ name: 'sandscope_runs_in_flight', help: 'Runs executing now.', registers });
    this.#nodeDuration = new Histogram({
      name: 'sandscope_node_duration_seconds',
      help: 'Time spent in each graph node.',
      labelNames: ['node'],
      buckets: [...NODE_LATENCY_BUCKETS_SECONDS],
      registers,
    });
    this.#providerEvents = new Counter({
      name: 'sandscope_provider_events_total',
      help: 'Router events by provider and kind (served, failed, rate_limited, skipped_cooldown, injected_failure).',
      labelNames: ['provider', 'kind'],
      registers,
    });
    this.#failovers = new Counter({
      name: 'sandscope_provider_failovers_total',
      help: 'Provider events where the router had to move on to the next provider.',
      labelNames: ['provider', 'kind'],
      registers,
    });
    this.#cacheEvents = new Counter({
      name: 'sandscope_cache_events_total',
      help: 'Semantic cache decisions (hit by match, miss, bypass for a correction, stored).',
      labelNames: ['event', 'match'],
      registers,
    });
    this.#cacheHits = new Counter({ name: 'sandscope_cache_hits_total', help: 'Model calls answered from the semantic cache.', registers });
    this.#spend = new Counter({ name: 'sandscope_spend_usd_total', help: 'US dollars settled with providers.', registers });
    this.#responses = new Counter({ name: 'sandscope_http_responses_total', help: 'HTTP responses by status.', labelNames: ['status'], registers });
  }

  /** A run reached a terminal. */
  runFinished(verdict: string, terminal: string): void {
    this.#runs.inc({ verdict, terminal });
  }

  /** A run stopped without a terminal (a bug or an outage); `reason` is a closed set such as `internal`. */
  runFailed(reason: string): void {
    this.#runFailures.inc({ reason });
  }

  runStarted(): void {
    this.#inFlight += 1;
    this.#inFlightGauge.set(this.#inFlight);
  }

  runEnded(): void {
    this.#inFlight = Math.max(0, this.#inFlight - 1);
    this.#inFlightGauge.set(this.#inFlight);
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  nodeDuration(node: string, durationMs: number): void {
    this.#nodeDuration.observe({ node }, Math.max(0, durationMs) / 1000);
  }

  /** Every router event; anything but `served` is a provider the run had to route around (a failover). */
  providerEvent(provider: string, kind: string): void {
    this.#providerEvents.inc({ provider, kind });
    if (kind !== 'served') this.#failovers.inc({ provider, kind });
  }

  cacheEvent(event: CacheEvent): void {
    this.#cacheEvents.inc(event.kind === 'hit' ? { event: 'hit', match: event.match } : { event: event.kind });
    if (event.kind === 'hit') this.#cacheHits.inc();
  }

  /** Money a provider call actually cost (the spend guard's settlement). */
  spend(usd: number): void {
    if (Number.isFinite(usd) && usd > 0) this.#spend.inc(usd);
  }

  response(status: number): void {
    this.#responses.inc({ status: String(status) });
  }

  /** The exposition's content type, as prom-client writes it. */
  get contentType(): string {
    return this.registry.contentType;
  }

  /** The exposition text served at `GET /metrics`. */
  render(): Promise<string> {
    return this.registry.metrics();
  }
}
