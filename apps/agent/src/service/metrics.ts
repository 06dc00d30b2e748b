import type { CacheEvent } from '@sandscope/engine/models';

/** Upper bounds, in seconds, of the node-latency histogram's buckets. */
export const NODE_LATENCY_BUCKETS_SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30] as const;

interface Histogram {
  readonly counts: number[];
  sum: number;
  count: number;
}

type Labels = Readonly<Record<string, string>>;

/**
 * The agent's process-wide counters, rendered in the Prometheus text exposition
 * format (version 0.0.4) by hand: a handful of counters and one histogram do not
 * justify a metrics library. Only labels with a closed, small set of values —
 * verdict, terminal, node, provider, event kind, status — never a run id, a
 * question or a client key, so the series count stays bounded (and T-9 holds:
 * nothing here identifies a client).
 */
export class ServiceMetrics {
  readonly #runs = new Map<string, number>();
  readonly #runFailures = new Map<string, number>();
  readonly #nodeLatency = new Map<string, Histogram>();
  readonly #providerEvents = new Map<string, number>();
  readonly #failovers = new Map<string, number>();
  readonly #cacheEvents = new Map<string, number>();
  #cacheHits = 0;
  readonly #responses = new Map<string, number>();
  #spendUsd = 0;
  #inFlight = 0;

  /** A run reached a terminal. */
  runFinished(verdict: string, terminal: string): void {
    bump(this.#runs, key({ verdict, terminal }));
  }

  /** A run stopped without a terminal (a bug or an outage); `reason` is a closed set such as `internal`. */
  runFailed(reason: string): void {
    bump(this.#runFailures, key({ reason }));
  }

  runStarted(): void {
    this.#inFlight += 1;
  }

  runEnded(): void {
    this.#inFlight = Math.max(0, this.#inFlight - 1);
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  nodeDuration(node: string, durationMs: number): void {
    let h = this.#nodeLatency.get(node);
    if (!h) this.#nodeLatency.set(node, (h = { counts: NODE_LATENCY_BUCKETS_SECONDS.map(() => 0), sum: 0, count: 0 }));
    const seconds = Math.max(0, durationMs) / 1000;
    NODE_LATENCY_BUCKETS_SECONDS.forEach((le, i) => {
      if (seconds <= le) h.counts[i]! += 1;
    });
    h.sum += seconds;
    h.count += 1;
  }

  /** Every router event; anything but `served` is a provider the run had to route around (a failover). */
  providerEvent(provider: string, kind: string): void {
    bump(this.#providerEvents, key({ provider, kind }));
    if (kind !== 'served') bump(this.#failovers, key({ provider, kind }));
  }

  cacheEvent(event: CacheEvent): void {
    bump(this.#cacheEvents, key(event.kind === 'hit' ? { event: 'hit', match: event.match } : { event: event.kind }));
    if (event.kind === 'hit') this.#cacheHits += 1;
  }

  /** Money a provider call actually cost (the spend guard's settlement). */
  spend(usd: number): void {
    if (Number.isFinite(usd) && usd > 0) this.#spendUsd += usd;
  }

  response(status: number): void {
    bump(this.#responses, key({ status: String(status) }));
  }

  /** The exposition text served at `GET /metrics`. */
  render(): string {
    const out: string[] = [];
    family(out, 'sandscope_runs_total', 'counter', 'Runs that reached a terminal, by verdict and terminal.', this.#runs);
    family(out, 'sandscope_run_failures_total', 'counter', 'Runs that stopped without a terminal (recorded as failed).', this.#runFailures);
    out.push('# HELP sandscope_runs_in_flight Runs executing now.', '# TYPE sandscope_runs_in_flight gauge', `sandscope_runs_in_flight ${this.#inFlight}`);

    out.push('# HELP sandscope_node_duration_seconds Time spent in each graph node.', '# TYPE sandscope_node_duration_seconds histogram');
    for (const [node, h] of [...this.#nodeLatency].sort(([a], [b]) => a.localeCompare(b))) {
      NODE_LATENCY_BUCKETS_SECONDS.forEach((le, i) => out.push(`sandscope_node_duration_seconds_bucket${labels({ node, le: String(le) })} ${h.counts[i]}`));
      out.push(`sandscope_node_duration_seconds_bucket${labels({ node, le: '+Inf' })} ${h.count}`);
      out.push(`sandscope_node_duration_seconds_sum${labels({ node })} ${number(h.sum)}`);
      out.push(`sandscope_node_duration_seconds_count${labels({ node })} ${h.count}`);
    }

    family(out, 'sandscope_provider_events_total', 'counter', 'Router events by provider and kind (served, failed, rate_limited, skipped_cooldown, outside_reservation, injected_failure).', this.#providerEvents);
    family(out, 'sandscope_provider_failovers_total', 'counter', 'Provider events where the router had to move on to the next provider.', this.#failovers);
    family(out, 'sandscope_cache_events_total', 'counter', 'Semantic cache decisions (hit by match, miss, bypass for a correction, stored).', this.#cacheEvents);
    out.push('# HELP sandscope_cache_hits_total Model calls answered from the semantic cache.', '# TYPE sandscope_cache_hits_total counter', `sandscope_cache_hits_total ${this.#cacheHits}`);
    out.push('# HELP sandscope_spend_usd_total US dollars settled with providers.', '# TYPE sandscope_spend_usd_total counter', `sandscope_spend_usd_total ${number(this.#spendUsd)}`);
    family(out, 'sandscope_http_responses_total', 'counter', 'HTTP responses by status.', this.#responses);
    return `${out.join('\n')}\n`;
  }
}

function key(labelSet: Labels): string {
  return JSON.stringify(labelSet);
}

function bump(map: Map<string, number>, k: string): void {
  map.set(k, (map.get(k) ?? 0) + 1);
}

function family(out: string[], name: string, type: 'counter' | 'gauge', help: string, series: Map<string, number>): void {
  out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
  for (const [k, value] of [...series].sort(([a], [b]) => a.localeCompare(b))) {
    out.push(`${name}${labels(JSON.parse(k) as Labels)} ${number(value)}`);
  }
}

/** `{a="x",b="y"}` with the exposition format's escaping of backslash, quote and newline. */
function labels(labelSet: Labels): string {
  const parts = Object.entries(labelSet).map(([k, v]) => `${k}="${v.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n')}"`);
  return parts.length ? `{${parts.join(',')}}` : '';
}

function number(value: number): string {
  return Number.isInteger(value) ? String(value) : String(Math.round(value * 1e9) / 1e9);
}
